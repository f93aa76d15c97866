// Mutants: deliberately broken variants of core rules, each swapped in through the core's own seams
// (core/arbiter/seams.ts, core/client/seams.ts) and only here, in test support. Each must be caught by
// the explorer (`lockstep explore --mutant M`): a mutant the checkers cannot see would mean the checkers,
// the workload or the fault schedules are too weak to protect that rule. Nothing in ArbiterOptions,
// LockClientOptions or `lockstep lock` can switch one on.
//
// Each mutant's swarm variant (`lockstep run swarm --variant M`) must show its violation at every seed,
// like every other scenario's violation variants: its demonstration is a schedule that exposes the
// mutant by construction, not by the luck of a seed, and where that needs a particular workload the
// mutant pins those parameters (the rest, and every timing and jitter, still come from the seed). The
// pins hold wherever the mutant runs, the explorer included, so that a run's seed, variant and schedule
// are all its replay needs; the explorer still draws every schedule from the seed.
import { grantTxn } from '../core/arbiter/grant-txn.js';
import { EPOCH_KEY, formatHolderValue } from '../core/arbiter/records.js';
import { SealGuard } from '../core/arbiter/seal-guard.js';
import { type ArbiterSeams, HONEST_ARBITER_SEAMS } from '../core/arbiter/seams.js';
import type { ClientSeams } from '../core/client/seams.js';
import { holderKeyOf } from '../core/lock-key.js';
import type { Episode } from './explore-schedule.js';
import type { SwarmParameters } from './swarm.js';

export const MUTANT_NAMES = ['no-epoch-compare', 'grant-on-watch-event', 'deadline-from-receive-time', 'no-seal', 'fail-open-correctness'] as const;
export type MutantName = (typeof MUTANT_NAMES)[number];

export interface Mutant {
  readonly name: MutantName;
  readonly description: string;
  readonly seams: { readonly arbiter?: ArbiterSeams; readonly client?: ClientSeams };
  /** The checks its demonstration fails at every seed (its swarm variant's `shows`). */
  readonly shows: readonly [string, ...string[]];
  /** Workload parameters the demonstration depends on, over the seed's draw (see the header). */
  readonly pins: Partial<SwarmParameters>;
  /**
   * A schedule that exposes the mutant at every seed: the default schedule of its swarm variant, so
   * that `lockstep run swarm --variant <mutant>` shows the violation it causes.
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
    const value = formatHolderValue({ identity: input.identity, instance: input.instance, sessionId: input.sessionId, className: input.className });
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

/** ADR-04 broken: an arbiter with a spool fails open for every class, not only `onQuorumLoss: open` ones. */
const failOpenForCorrectness: ArbiterSeams = { ...HONEST_ARBITER_SEAMS, opensOnQuorumLoss: () => true };

/**
 * The mutants' demonstrations were built on the swarm before issue 11's dimensions: they pin those to the
 * shapes they were shown on (one task per client, one replica each, memory lines, flat keys), issue
 * 29's: one process per identity, and issue 33's: no class that fails open.
 */
const BEFORE_ISSUE_11: Partial<SwarmParameters> = { tasksPerClient: 1, spread: false, fairness: 'memory', nestedKeys: false, replicasPerIdentity: 1, openClass: false };

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'no-epoch-compare',
    description: 'the grant txn does not compare the epoch record (ADR-03): an arbiter that missed an epoch advance keeps minting tokens of the old epoch',
    seams: { arbiter: noEpochCompare },
    shows: ['belief'],
    // The explorer shrinks this mutant's failures to the advance alone (e.g. `lockstep explore --mutant
    // no-epoch-compare --seed 14 --runs 1`). It shows only when the first grant after the advance goes
    // through arbiter-2, which missed it, on a free key: any earlier grant of that key through arbiter-1
    // makes arbiter-2's txn fail its holder compare, and that failure reloads the epoch. So arbiter-1's
    // clients (client-1 and client-3 of four) are gone before the advance: every grant after it is arbiter-2's.
    pins: { ...BEFORE_ISSUE_11, clients: 4 },
    demonstration: [
      { kind: 'crash', target: 'client-1', atMs: 3_000, downMs: 0, powerLoss: false },
      { kind: 'crash', target: 'client-3', atMs: 3_000, downMs: 0, powerLoss: false },
      { kind: 'advance-epoch', via: 'arbiter-1', atMs: 6_000 },
    ],
  },
  {
    name: 'grant-on-watch-event',
    description: 'a delete event on a waited-for key grants directly, writing the holder key without the compare (ADR-15): two arbiters woken by one release both grant',
    seams: { arbiter: grantOnWatchEvent },
    shows: ['belief'],
    // The explorer shrinks this one to no fault at all: the workload alone shows it once a release finds
    // waiters on both arbiters. One key makes every client wait on it (clients alternate arbiters).
    pins: { ...BEFORE_ISSUE_11, keys: 1 },
    demonstration: [],
  },
  {
    name: 'deadline-from-receive-time',
    description: "the client's fence deadline counts from a keepalive's answer, not its send (ADR-12): a late answer pushes the deadline past the lease's expiry",
    seams: { client: deadlineFromReceiveTime },
    shows: ['deadline'],
    // The explorer found this mutant with gray failures (a client's answers slow, then a freeze past its
    // TTL); a frozen holder is excused by the deadline check, and the belief check then needed the holder
    // to wake mid-hold and another client to want its key. Here by construction: the arbiters' answers to
    // every client come 2.5 s late, then the clients' requests stop reaching the arbiters. The last
    // keepalive that got through renewed the lease at once, but its answer came 2.5 s later, so the mutant's
    // deadline falls 1.5 s after the lease's expiry (the honest one 1 s before it): the deadline check
    // catches the hold the log expires. One key that three clients always wait for (no think time, a wait
    // longer than two holds) makes sure a hold is open, or granted to a waiter, when the requests stop.
    pins: { ...BEFORE_ISSUE_11, clients: 3, keys: 1, tryLockShare: 0, thinkMsMax: 0, waitMs: 30_000 },
    demonstration: [
      { kind: 'slow-link', from: ['arbiter-1', 'arbiter-2'], to: ['client-1', 'client-2', 'client-3'], oneWay: true, extraDelayMs: 1_800, atMs: 8_000, forMs: 18_000 },
      { kind: 'partition', from: ['client-1', 'client-2', 'client-3'], to: ['arbiter-1', 'arbiter-2'], oneWay: true, atMs: 14_000, forMs: 12_000 },
    ],
  },
  {
    name: 'no-seal',
    description: 'the seal guard is disabled (ADR-03): after a restore the arbiters keep serving and mint tokens the restored log had already handed out',
    seams: { arbiter: noSeal },
    shows: ['token-order'],
    // The explorer found it with a restore from a 7 s old snapshot; a snapshot that caught holds brings
    // them back (their holders' sessions keep them alive), and on a seed whose one or two keys were all
    // held then, nothing could be granted until the advance. A snapshot from before the workload has no
    // hold: after the restore every key is free, and its first grant reuses a revision already issued.
    // The advance comes 12 s after the restore: the clients whose acquires were in flight at the restore
    // are answered only when their calls time out (their wait plus the RPC margin), and with 5 s the drain
    // began before any of them asked again, so nothing was granted on the restored log (seed 12).
    pins: { ...BEFORE_ISSUE_11 },
    demonstration: [{ kind: 'restore', atMs: 10_000, snapshotAgeMs: 10_000, approvalMs: 12_000, via: 'arbiter-2' }],
  },
  {
    name: 'fail-open-correctness',
    description: 'an arbiter with a spool fails open for every class (ADR-04): while no majority answers, the fenced ledger too is granted from memory with token 0',
    seams: { arbiter: failOpenForCorrectness },
    shows: ['unprotected'],
    // Only a world with spools can fail open (swarm-open.ts), and only a lost majority opens it: two of
    // the three members crash for longer than the arbiters need to confirm the loss (QUORUM_LOSS_CONFIRM_MS).
    pins: { openClass: true },
    demonstration: [
      { kind: 'crash', target: 'etcd-2', atMs: 5_000, downMs: 12_000, powerLoss: false },
      { kind: 'crash', target: 'etcd-3', atMs: 5_000, downMs: 12_000, powerLoss: false },
    ],
  },
];

export function mutantNamed(name: string): Mutant | undefined {
  return MUTANTS.find((m) => m.name === name);
}
