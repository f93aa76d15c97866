// Reading a hold with the epoch it was minted in (ADR-02/16/20): the holder key and the epoch record in
// one read-only txn, so a token is always packed with the epoch of the log at the very revision the
// hold was read, never with a replica's cached epoch (issue 11, S2). inspect() answers who holds a key,
// with what token, and whether its class is fenced; per-key questions go here, never to metrics (ADR-22).
import type { LockKey } from '../lock-key.js';
import { holderKeyOf } from '../lock-key.js';
import type { InspectResponse } from '../ports/arbiter-api.js';
import type { KeyValue, RequestOp, ResponseHeader } from '../ports/lock-log.js';
import { packToken } from '../token.js';
import type { FencingToken } from '../units.js';
import type { CurrentEpoch, EpochState } from './epoch-state.js';
import type { ClassLookup } from './policy.js';
import { type HolderValue, parseHolderValue } from './records.js';

export interface HoldRead {
  /** The holder key as stored, if any. */
  readonly kv: KeyValue | undefined;
  /** Its value, when it is one lockstep wrote. */
  readonly holder: HolderValue | undefined;
  /** The hold's token: its create revision packed with the epoch read in the same txn. */
  readonly token: FencingToken | undefined;
  readonly epoch: CurrentEpoch;
  readonly header: ResponseHeader;
}

/** `before`: writes sent in the same txn ahead of the read (a grant guard's bump, grant-attempt.ts). */
export async function readHold(epochState: EpochState, key: LockKey, before: readonly RequestOp[] = [], timeoutMs?: number): Promise<HoldRead> {
  const read = await epochState.readAfter(before, [{ type: 'range', key: holderKeyOf(key) }], timeoutMs);
  const op = read.responses[0];
  const kv = op?.type === 'range' ? op.kvs[0] : undefined;
  const holder = kv === undefined ? undefined : parseHolderValue(kv.value);
  const token = kv === undefined || holder === undefined ? undefined : packToken(read.epoch.record.epoch, kv.createRevision);
  return { kv, holder, token, epoch: read.epoch, header: read.header };
}

export async function inspectKey(epochState: EpochState, classes: ClassLookup, key: LockKey): Promise<InspectResponse> {
  const { holder, token } = await readHold(epochState, key);
  if (holder === undefined || token === undefined) return { key: key.text, holder: undefined, enforcement: undefined };
  return {
    key: key.text,
    holder: { ...holder, token },
    enforcement: classes.get(key.namespace, holder.className)?.enforcement,
  };
}
