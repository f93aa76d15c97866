// Mutants: deliberately broken variants of core rules, each swapped in through the core's own seams
// (core/arbiter/seams.ts, core/client/seams.ts) and only here, in test support. Each must be caught by
// the explorer (`lockstep explore --mutant M`): a mutant the checkers cannot see would mean the checkers,
// the workload or the fault schedules are too weak to protect that rule. Nothing in ArbiterOptions,
// LockClientOptions or `lockstep lock` can switch one on.
import { grantTxn } from '../core/arbiter/grant-txn.js';
import { EPOCH_KEY, formatHolderValue } from '../core/arbiter/records.js';
import { SealGuard } from '../core/arbiter/seal-guard.js';
import { type ArbiterSeams, HONEST_ARBITER_SEAMS } from '../core/arbiter/seams.js';
import type { ClientSeams } from '../core/client/seams.js';
import { holderKeyOf } from '../core/lock-key.js';
import type { Episode } from './explore-schedule.js';

export const MUTANT_NAMES = ['no-epoch-compare', 'grant-on-watch-event', 'deadline-from-receive-time', 'no-seal'] as const;
export type MutantName = (typeof MUTANT_NAMES)[number];

export interface Mutant {
  readonly name: MutantName;
  readonly description: string;
  readonly seams: { readonly arbiter?: ArbiterSeams; readonly client?: ClientSeams };
  /**
   * A schedule that exposes the mutant: the default schedule of its swarm variant, so that
   * `lockstep run swarm --variant <mutant>` shows the violation it causes (found with the explorer).
   */
  readonly demonstration: readonly Episode[];
}

/** ADR-03 broken: the grant txn no longer compares the epoch record, so a stale arbiter mints old-epoch tokens. */
const noEpochCompare: ArbiterSeams = {
  ...HONEST_ARBITER_SEAMS,
  grantTxn: (input) => {
    const honest = grantTxn(input);
    return { ...honest, compare: honest.compare.filter((compare) => compare.key !== EPOCH_KEY) };
  },
};

/**
 * ADR-15 broken: a delete event on the watched holder key is taken as permission to hold: the waiter
 * writes the holder key with no compare at all, instead of running the full grant txn.
 */
const grantOnWatchEvent: ArbiterSeams = {
  ...HONEST_ARBITER_SEAMS,
  grantTxn: (input, trigger) => {
    if (trigger !== 'watch-event') return grantTxn(input);
    const value = formatHolderValue({ identity: input.identity, sessionId: input.sessionId, className: input.className });
    return {
      compare: [],
      success: [{ type: 'put', key: holderKeyOf(input.key), value, lease: input.sessionId }, ...(input.waiterKey === undefined ? [] : [{ type: 'delete' as const, key: input.waiterKey }])],
      failure: [],
    };
  },
};

/** ADR-12 broken: the fence deadline counts from when a keepalive's answer arrived, not from when it was sent. */
const deadlineFromReceiveTime: ClientSeams = {
  renewedAtMs: (_sentMs, answeredMs) => answeredMs,
};

/** ADR-03 broken: the seal guard never seals: a foreign cluster ID, a revision that went back, a missing epoch record all pass. */
class DisabledSealGuard extends SealGuard {
  override observe(): void {}
  override seal(): void {}
}

const noSeal: ArbiterSeams = { ...HONEST_ARBITER_SEAMS, sealGuard: () => new DisabledSealGuard() };

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'no-epoch-compare',
    description: 'the grant txn does not compare the epoch record (ADR-03): an arbiter that missed an epoch advance keeps minting tokens of the old epoch',
    seams: { arbiter: noEpochCompare },
    demonstration: [{ kind: 'advance-epoch', via: 'arbiter-1', atMs: 6_000 }],
  },
  {
    name: 'grant-on-watch-event',
    description: 'a delete event on a waited-for key grants directly, writing the holder key without the compare (ADR-15): two arbiters woken by one release both grant',
    seams: { arbiter: grantOnWatchEvent },
    demonstration: [],
  },
  {
    name: 'deadline-from-receive-time',
    description: "the client's fence deadline counts from a keepalive's answer, not its send (ADR-12): a late answer pushes the deadline past the lease's expiry",
    seams: { client: deadlineFromReceiveTime },
    // Gray failures of two holders: each one's keepalive answers come slow, then it freezes mid-work past its TTL.
    demonstration: [
      { kind: 'brownout', target: 'client-1', atMs: 2_000, extraDelayMs: 900, freezeAfterMs: 2_000, freezeForMs: 10_000, recoverMs: 3_000 },
      { kind: 'brownout', target: 'client-2', atMs: 14_000, extraDelayMs: 900, freezeAfterMs: 2_000, freezeForMs: 10_000, recoverMs: 3_000 },
    ],
  },
  {
    name: 'no-seal',
    description: 'the seal guard is disabled (ADR-03): after a restore the arbiters keep serving and mint tokens the restored log had already handed out',
    seams: { arbiter: noSeal },
    demonstration: [{ kind: 'restore', atMs: 10_000, snapshotAgeMs: 7_000, approvalMs: 5_000, via: 'arbiter-2' }],
  },
];

export function mutantNamed(name: string): Mutant | undefined {
  return MUTANTS.find((m) => m.name === name);
}
