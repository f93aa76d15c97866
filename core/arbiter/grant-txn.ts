// ADR-02/03/13/15: a grant is one txn, comparing holder-key absence, the epoch record and the session's
// grant guard for the key (lock-key.ts guardKeyOf), putting the holder value on the session lease. Its
// failure branch reads the holder, the epoch record and the guard in the same round trip, so a refusal is
// classified without a second read.
import { assert } from '../assert.js';
import type { LockKey } from '../lock-key.js';
import { guardKeyOf, holderKeyOf } from '../lock-key.js';
import type { KeyValue, TxnRequest, TxnResponse } from '../ports/lock-log.js';
import type { LeaseId, Revision } from '../units.js';
import type { CurrentEpoch } from './epoch-state.js';
import { EPOCH_KEY, type HolderValue, formatHolderValue, parseHolderValue } from './records.js';

export interface GrantTxnInput {
  readonly key: LockKey;
  readonly identity: string;
  /** The session's instance (issue 29): the leak rule applies within one (identity, instance). */
  readonly instance: string;
  readonly sessionId: LeaseId;
  readonly className: string;
  readonly epoch: CurrentEpoch;
  /** A durable waiter key (ADR-14) to delete in the same txn that grants. */
  readonly waiterKey?: string;
  /** The version of the session's grant guard for the key this txn may commit under (0: never settled). */
  readonly guardVersion: bigint;
}

export type GrantOutcome =
  /** Granted at `revision`; `reentered` when the session already held it (idempotent). */
  | { readonly kind: 'granted'; readonly revision: Revision; readonly reentered: boolean }
  /** Held by another identity. `seenAt` is the txn's header revision: watch from the next one (ADR-15). */
  | { readonly kind: 'contended'; readonly holder: HolderValue | undefined; readonly seenAt: Revision }
  /** Held by the same (identity, instance) under another session: a leaked hold (ADR-13, issue 29). */
  | { readonly kind: 'leak'; readonly holder: HolderValue }
  /** The epoch record changed since the arbiter read it: reload and try again. */
  | { readonly kind: 'epoch-changed'; readonly epochKv: KeyValue | undefined }
  /** The grant guard is not at the version the arbiter knew (a settle bumped it): try again at `version`. */
  | { readonly kind: 'guard-changed'; readonly version: bigint };

export function grantTxn(input: GrantTxnInput): TxnRequest {
  const holderKey = holderKeyOf(input.key);
  const guardKey = guardKeyOf(input.key, input.sessionId);
  const value = formatHolderValue({ identity: input.identity, instance: input.instance, sessionId: input.sessionId, className: input.className });
  return {
    compare: [
      { key: holderKey, target: 'create', op: '=', value: 0n },
      { key: EPOCH_KEY, target: 'mod', op: '=', value: input.epoch.modRevision },
      { key: guardKey, target: 'version', op: '=', value: input.guardVersion },
    ],
    success: [
      { type: 'put', key: holderKey, value, lease: input.sessionId },
      ...(input.waiterKey === undefined ? [] : [{ type: 'delete' as const, key: input.waiterKey }]),
    ],
    failure: [
      { type: 'range', key: holderKey },
      { type: 'range', key: EPOCH_KEY },
      { type: 'range', key: guardKey },
    ],
  };
}

export function classifyGrant(input: GrantTxnInput, response: TxnResponse): GrantOutcome {
  if (response.succeeded) return { kind: 'granted', revision: response.header.revision, reentered: false };
  assert(response.responses.length === 3 && response.responses.every((op) => op.type === 'range'), () => `a refused grant txn answered ${response.responses.length} ops, not the failure branch's three reads`);
  const holderKv = rangeKv(response, 0);
  const epochKv = rangeKv(response, 1);
  if (epochKv === undefined || epochKv.modRevision !== input.epoch.modRevision) return { kind: 'epoch-changed', epochKv };
  const guardVersion = rangeKv(response, 2)?.version ?? 0n;
  if (guardVersion !== input.guardVersion) return { kind: 'guard-changed', version: guardVersion };
  // The epoch and guard compares held, so the holder compare (create = 0) is the one that failed: the holder key
  // existed at this revision, and the failure branch read it in the same txn. Only a broken LockLog or
  // grant txn answers otherwise (this was once treated as contended, hiding the bug).
  assert(holderKv !== undefined, () => `grant txn for ${input.key.text} was refused with the epoch record unchanged, yet it read no holder at revision ${response.header.revision}`);
  const holder = parseHolderValue(holderKv.value);
  if (holder !== undefined && holder.sessionId === input.sessionId && holderKv.lease === input.sessionId) {
    return { kind: 'granted', revision: holderKv.createRevision, reentered: true };
  }
  // Issue 29: another replica of the same workload (same identity, another instance) waits like anyone else.
  if (holder !== undefined && holder.identity === input.identity && holder.instance === input.instance) return { kind: 'leak', holder };
  return { kind: 'contended', holder, seenAt: response.header.revision };
}

function rangeKv(response: TxnResponse, index: number): KeyValue | undefined {
  const op = response.responses[index];
  return op?.type === 'range' ? op.kvs[0] : undefined;
}
