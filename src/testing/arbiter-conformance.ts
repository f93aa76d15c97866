// One ArbiterApi conformance suite (ARCHITECTURE.md, "The ports"): the same cases against every
// implementation of lock.v1 a client library may be handed: the arbiter in process (actingAs), the
// simulated RPC (sim/rpc) and real gRPC (src/service). Each subject says who calls by its own transport;
// the cases only ask for "the API as ALICE". The expected outcomes are the contract's, never a subject's.
import { expect, it } from 'vitest';
import { isLockError, type LockError } from '../../core/lock-error.js';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import { formatToken } from '../../core/token.js';
import { ALICE, BILLER, BOB, FENCED, NAMESPACE, OPERATOR_IDS, OTHER_NAMESPACE } from './arbiter-fixture.js';

export interface ArbiterSubject {
  /** lock.v1 as the transport would present `identity` (authenticated where the transport can prove it). */
  as(identity: string): Promise<ArbiterApi>;
  /** A key no other case uses. */
  key(label: string, namespace?: string): string;
}

async function refusal(promise: Promise<unknown>): Promise<LockError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!isLockError(error)) throw new Error(`expected a LockError, got ${String(error)}`);
  return error;
}

/** Registers the cases; `subject` is read when a case runs (after the caller's beforeAll). */
export function arbiterConformance(subject: () => ArbiterSubject): void {
  it('grants to one caller at a time, names the caller as holder, and releases once', async () => {
    const s = subject();
    const [alice, bob] = [await s.as(ALICE), await s.as(BOB)];
    const key = s.key('turns');
    const aliceSession = await alice.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const bobSession = await bob.openSession({ ttlSeconds: FENCED.ttlSeconds });
    expect([aliceSession.identity, bobSession.identity]).toEqual([ALICE, BOB]);
    const grant = await alice.acquire({ sessionId: aliceSession.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect([grant.identity, grant.key, grant.reentered]).toEqual([ALICE, key, false]);
    expect((await refusal(bob.acquire({ sessionId: bobSession.sessionId, key, className: FENCED.name, waitMs: 0 }))).code).toBe('contended');
    expect((await alice.inspect(key)).holder?.identity).toBe(ALICE);
    expect(await alice.release({ sessionId: aliceSession.sessionId, key, token: grant.token })).toEqual({ released: true });
    expect(await alice.release({ sessionId: aliceSession.sessionId, key, token: grant.token })).toEqual({ released: false });
    const next = await bob.acquire({ sessionId: bobSession.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect(next.token > grant.token).toBe(true);
    expect(await bob.validate({ key, token: formatToken(next.token) })).toEqual({ valid: true, currentToken: next.token });
    expect(await bob.validate({ key, token: formatToken(grant.token) })).toEqual({ valid: false, currentToken: next.token });
    await bob.release({ sessionId: bobSession.sessionId, key, token: next.token });
    await Promise.all([alice.closeSession({ sessionId: aliceSession.sessionId }), bob.closeSession({ sessionId: bobSession.sessionId })]);
  });

  it('denies a key outside the caller\'s grants with one error, whether the key is held or free', async () => {
    const s = subject();
    const [alice, biller] = [await s.as(ALICE), await s.as(BILLER)];
    const key = s.key('foreign', OTHER_NAMESPACE);
    const session = await alice.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const whileFree = await refusal(alice.acquire({ sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 }));
    const billerSession = await biller.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const held = await biller.acquire({ sessionId: billerSession.sessionId, key, className: FENCED.name, waitMs: 0 }); // the negative control: the key's owner may
    const whileHeld = await refusal(alice.acquire({ sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 }));
    expect(whileFree.code).toBe('denied');
    expect([whileHeld.code, whileHeld.message]).toEqual([whileFree.code, whileFree.message]);
    expect((await refusal(alice.inspect(key))).code).toBe('denied');
    await biller.release({ sessionId: billerSession.sessionId, key, token: held.token });
    await Promise.all([alice.closeSession({ sessionId: session.sessionId }), biller.closeSession({ sessionId: billerSession.sessionId })]);
  });

  it('refuses another caller\'s session with session-mismatch', async () => {
    const s = subject();
    const [alice, bob] = [await s.as(ALICE), await s.as(BOB)];
    const bobSession = await bob.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const error = await refusal(alice.acquire({ sessionId: bobSession.sessionId, key: s.key('borrowed', NAMESPACE), className: FENCED.name, waitMs: 0 }));
    expect(error.code).toBe('session-mismatch');
    expect((await bob.keepAlive({ sessionId: bobSession.sessionId })).ttlSeconds).toBe(FENCED.ttlSeconds);
    await bob.closeSession({ sessionId: bobSession.sessionId });
  });

  it('force-releases with a second, different operator only, and names both', async () => {
    const s = subject();
    const [alice, ana, ben] = [await s.as(ALICE), await s.as(OPERATOR_IDS[0]), await s.as(OPERATOR_IDS[1])];
    const key = s.key('forced');
    const session = await alice.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const grant = await alice.acquire({ sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
    const request = { key, expectedToken: formatToken(grant.token), reason: 'holder wedged since 02:10 (INC-4711)' };
    expect((await refusal(alice.requestForceRelease(request))).code).toBe('denied');
    const proposal = await ana.requestForceRelease(request);
    expect([proposal.enforcement, proposal.holder.identity, proposal.requester]).toEqual(['fenced', ALICE, OPERATOR_IDS[0]]);
    expect((await refusal(ana.approveForceRelease({ requestId: proposal.requestId }))).code).toBe('approval-required');
    const done = await ben.approveForceRelease({ requestId: proposal.requestId });
    expect([done.released, done.requester, done.approver]).toEqual([true, OPERATOR_IDS[0], OPERATOR_IDS[1]]);
    expect((await ana.inspect(key)).holder).toBeUndefined();
    await alice.closeSession({ sessionId: session.sessionId });
  });
}
