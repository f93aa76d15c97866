// core's lock.v1 shapes (core/ports/arbiter-api.ts) to and from the generated protobuf messages. Tokens
// and revisions are decimal strings on the wire (ADR-02); what comes in is parsed by core's own rules.
import { create } from '@bufbuild/protobuf';
import { LockError } from '../../core/lock-error.js';
import type { Grant, Holder, InspectResponse, KeyClass } from '../../core/ports/arbiter-api.js';
import { parseToken } from '../../core/token.js';
import { leaseId, revision } from '../../core/units.js';
import { type DescribeKeyResponse, DescribeKeyResponseSchema, Enforcement, Fairness, type Grant as WireGrant, GrantSchema, type Holder as WireHolder, HolderSchema, type InspectResponse as WireInspect, InspectResponseSchema } from '../gen/lockstep/lock/v1/lock_pb.js';

export function enforcementToWire(enforcement: 'fenced' | 'advisory' | undefined): Enforcement {
  return enforcement === 'fenced' ? Enforcement.FENCED : enforcement === 'advisory' ? Enforcement.ADVISORY : Enforcement.UNSPECIFIED;
}

export function enforcementFromWire(enforcement: Enforcement): 'fenced' | 'advisory' | undefined {
  return enforcement === Enforcement.FENCED ? 'fenced' : enforcement === Enforcement.ADVISORY ? 'advisory' : undefined;
}

export function grantToWire(grant: Grant): WireGrant {
  return create(GrantSchema, {
    key: grant.key,
    token: grant.token.toString(),
    epoch: grant.epoch,
    revision: grant.revision.toString(),
    sessionId: grant.sessionId,
    identity: grant.identity,
    className: grant.className,
    reentered: grant.reentered,
    unprotected: grant.unprotected === true, // ADR-04
  });
}

/** A server's answer is still checked: a malformed token is the server's bug, not a token to act on. */
export function grantFromWire(grant: WireGrant | undefined): Grant {
  if (grant === undefined) throw new LockError('unavailable', 'the arbiter answered acquire without a grant; it is not a lockstep lock.v1 server');
  if (!/^[0-9]+$/.test(grant.revision)) throw new LockError('unavailable', `the arbiter answered a grant with revision ${JSON.stringify(grant.revision.slice(0, 40))}, not a decimal number`);
  return {
    key: grant.key,
    token: parseToken(grant.token),
    epoch: grant.epoch,
    revision: revision(BigInt(grant.revision)),
    sessionId: leaseId(grant.sessionId),
    identity: grant.identity,
    className: grant.className,
    reentered: grant.reentered,
    ...(grant.unprotected ? { unprotected: true } : {}), // ADR-04
  };
}

export function holderToWire(holder: Holder): WireHolder {
  return create(HolderSchema, { identity: holder.identity, instance: holder.instance, sessionId: holder.sessionId, className: holder.className, token: holder.token.toString() });
}

export function holderFromWire(holder: WireHolder): Holder {
  return { identity: holder.identity, instance: holder.instance, sessionId: leaseId(holder.sessionId), className: holder.className, token: parseToken(holder.token) };
}

export function keyClassToWire(described: KeyClass): DescribeKeyResponse {
  return create(DescribeKeyResponseSchema, {
    key: described.key,
    namespace: described.namespace,
    className: described.className,
    ttlSeconds: described.ttlSeconds,
    enforcement: enforcementToWire(described.enforcement),
    fairness: described.fairness === 'durable' ? Fairness.DURABLE : Fairness.MEMORY,
  });
}

/** A server's answer is still checked: a class without its enforcement or fairness is not one to lock under. */
export function keyClassFromWire(described: DescribeKeyResponse): KeyClass {
  const enforcement = enforcementFromWire(described.enforcement);
  const fairness = described.fairness === Fairness.DURABLE ? 'durable' : described.fairness === Fairness.MEMORY ? 'memory' : undefined;
  if (enforcement === undefined || fairness === undefined || described.className === '') throw new LockError('unavailable', `the arbiter described ${described.key.slice(0, 80)} without its class, enforcement or fairness; it is not a lockstep lock.v1 server of this version`);
  return { key: described.key, namespace: described.namespace, className: described.className, ttlSeconds: described.ttlSeconds, enforcement, fairness };
}

export function inspectToWire(response: InspectResponse): WireInspect {
  return create(InspectResponseSchema, {
    key: response.key,
    ...(response.holder === undefined ? {} : { holder: holderToWire(response.holder) }),
    enforcement: enforcementToWire(response.enforcement),
  });
}

export function inspectFromWire(response: WireInspect): InspectResponse {
  return { key: response.key, holder: response.holder === undefined ? undefined : holderFromWire(response.holder), enforcement: enforcementFromWire(response.enforcement) };
}
