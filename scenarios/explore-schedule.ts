// The explorer's fault schedules (swarm testing, Groce et al. 2012): each run's seed draws a fault MIX
// (which kinds of fault this run may use at all) and then a schedule of fault EPISODES of those kinds,
// with fast-check, so that a failing schedule can be shrunk by fast-check to a minimal one. An episode
// is one fault with its end (a pause and its resume, a partition and its heal), so removing an episode
// while shrinking never leaves half a fault behind; `toFaults` turns episodes into the plain Fault data
// that run artifacts keep and `lockstep replay` runs again.
//
// Clock drift is kept within what ADR-12's margin absorbs (a few thousand ppm against the 200,000 ppm
// that 1 s of margin covers over a 5 s TTL): drift beyond the margin is a known, declared violation
// (the clock-drift scenario), not something the swarm should keep rediscovering.
import fc from 'fast-check';
import { Rng } from '../sim/kernel/rng.js';
import { fnv1a64Hex } from '../sim/trace/fnv64.js';
import type { Fault } from './faults.js';

/** Etcd members by position (a restore renames them; faults.ts resolves `@member-N` when it fires). */
export const SWARM_MEMBERS = ['@member-1', '@member-2', '@member-3'] as const;
export const SWARM_ARBITERS = ['arbiter-1', 'arbiter-2'] as const;

export function swarmClientName(index: number): string {
  return `client-${index + 1}`;
}

/** Which arbiter a client speaks to: clients alternate, so both arbiters have waiters for every key. */
export function arbiterIndexOf(clientIndex: number): number {
  return clientIndex % SWARM_ARBITERS.length;
}

// The last three are issue 11's: a watch lossy across many rounds, committed writes whose answers are lost, a stuck (not crashed) member.
export const EPISODE_KINDS = ['pause', 'crash', 'partition', 'slow-link', 'brownout', 'stall-disk', 'clock-drift', 'advance-epoch', 'restore', 'lossy-watch', 'lose-answers', 'stuck-member'] as const;
export type EpisodeKind = (typeof EPISODE_KINDS)[number];

export type Episode =
  | { readonly kind: 'pause'; readonly target: string; readonly atMs: number; readonly forMs: number }
  /** Members and arbiters come back after `downMs`; a client's machine stays down (its memory is gone). */
  | { readonly kind: 'crash'; readonly target: string; readonly atMs: number; readonly downMs: number; readonly powerLoss: boolean }
  | { readonly kind: 'partition'; readonly from: readonly string[]; readonly to: readonly string[]; readonly oneWay: boolean; readonly atMs: number; readonly forMs: number }
  | { readonly kind: 'slow-link'; readonly from: readonly string[]; readonly to: readonly string[]; readonly oneWay: boolean; readonly extraDelayMs: number; readonly atMs: number; readonly forMs: number }
  /** A gray failure (faults.ts `brownout`): slow links to the lock service, a freeze, a slow recovery. */
  | { readonly kind: 'brownout'; readonly target: string; readonly atMs: number; readonly extraDelayMs: number; readonly freezeAfterMs: number; readonly freezeForMs: number; readonly recoverMs: number }
  | { readonly kind: 'stall-disk'; readonly target: string; readonly atMs: number; readonly forMs: number }
  | { readonly kind: 'clock-drift'; readonly target: string; readonly atMs: number; readonly ppm: number }
  /** Operators advance the epoch through `via` (in the swarm: a drained maintenance, ADR-09's procedure). */
  | { readonly kind: 'advance-epoch'; readonly via: string; readonly atMs: number }
  /**
   * A restore from a snapshot `snapshotAgeMs` old, by the procedure of docs/seal-and-epochs.md (arbiters
   * stopped, a new cluster token), then the operators' epoch advance through `via`, `approvalMs` later.
   */
  | { readonly kind: 'restore'; readonly atMs: number; readonly snapshotAgeMs: number; readonly approvalMs: number; readonly via: string }
  /** An arbiter's watches deliver nothing for `forMs`: many rounds of ADR-15's poll fallback. */
  | { readonly kind: 'lossy-watch'; readonly target: string; readonly atMs: number; readonly forMs: number }
  /** Every `everyNth` committed write of an arbiter loses its answer for `forMs` (in-doubt outcomes). */
  | { readonly kind: 'lose-answers'; readonly target: string; readonly atMs: number; readonly forMs: number; readonly everyNth: number; readonly timeoutMs: number }
  /** A member takes requests and answers none for `forMs`; the others keep a quorum. */
  | { readonly kind: 'stuck-member'; readonly target: string; readonly atMs: number; readonly forMs: number };

/** What the schedule may touch and when. */
export interface ScheduleShape {
  readonly clients: number;
  /** Faults start in [FIRST_FAULT_MS, windowMs). */
  readonly windowMs: number;
}

export const FIRST_FAULT_MS = 500;
export const MAX_EPISODES = 10;
/** Within ADR-12's margin with room to spare (see the header). */
export const MAX_DRIFT_PPM = 5_000;

/** A 32-bit fast-check seed from a run seed (any string). */
export function fastCheckSeed(seed: string): number {
  return Number.parseInt(fnv1a64Hex(`fast-check|${seed}`).slice(-8), 16) | 0;
}

/** The fault mix of a run: each kind is in with probability 1/2, and at least one is. */
export function faultMix(seed: string): readonly EpisodeKind[] {
  const stream = new Rng(seed).stream('swarm/fault-mix');
  const mix = EPISODE_KINDS.filter(() => stream.chance(0.5));
  return mix.length > 0 ? mix : [stream.pick(EPISODE_KINDS)];
}

export function scheduleArbitrary(shape: ScheduleShape, mix: readonly EpisodeKind[]): fc.Arbitrary<Episode[]> {
  const kinds = mix.map((kind) => episodeArbitrary(kind, shape));
  // Unbiased: fast-check's bias toward bounds (0 ms, the largest delay) suits parsers, not fault timing.
  return fc.noBias(fc.array(fc.oneof(...kinds), { minLength: 0, maxLength: MAX_EPISODES }));
}

/** The schedule a seed draws: the same value fast-check's first run of the explorer sees for that seed. */
export function drawEpisodes(seed: string, shape: ScheduleShape): Episode[] {
  const [episodes] = fc.sample(scheduleArbitrary(shape, faultMix(seed)), { seed: fastCheckSeed(seed), numRuns: 1 });
  if (episodes === undefined) throw new Error('explore-schedule: fast-check drew no schedule');
  return episodes;
}

function episodeArbitrary(kind: EpisodeKind, shape: ScheduleShape): fc.Arbitrary<Episode> {
  const clients = Array.from({ length: shape.clients }, (_, i) => swarmClientName(i));
  const atMs = fc.integer({ min: FIRST_FAULT_MS, max: shape.windowMs - 1 });
  const anyProcess = fc.constantFrom(...SWARM_MEMBERS, ...SWARM_ARBITERS, ...clients);
  // Two pauses in three stop a client, one of them whichever holds a lock when it fires (faults.ts
  // `@holder`): a holder's stop-the-world pause is the classic danger (ADR-12/17).
  const pausable = fc.oneof(fc.constant('@holder'), fc.constantFrom(...clients), anyProcess);
  switch (kind) {
    case 'pause':
      return fc.record({ kind: fc.constant(kind), target: pausable, atMs, forMs: fc.integer({ min: 200, max: 12_000 }) });
    case 'crash':
      return fc.record({ kind: fc.constant(kind), target: anyProcess, atMs, downMs: fc.integer({ min: 200, max: 10_000 }), powerLoss: fc.boolean() });
    case 'partition':
      return fc.tuple(cut(clients), fc.boolean(), atMs, fc.integer({ min: 200, max: 12_000 })).map(([[from, to], oneWay, at, forMs]) => ({ kind, from, to, oneWay, atMs: at, forMs }));
    case 'slow-link':
      return fc
        .tuple(slowPair(clients), fc.boolean(), fc.integer({ min: 50, max: 2_000 }), atMs, fc.integer({ min: 1_000, max: 20_000 }))
        .map(([[from, to], oneWay, extraDelayMs, at, forMs]) => ({ kind, from, to, oneWay, extraDelayMs, atMs: at, forMs }));
    case 'brownout':
      return fc.record({
        kind: fc.constant(kind),
        // Mostly holders: a client's gray failure is where a late answer meets a long freeze (ADR-12).
        target: fc.oneof({ arbitrary: fc.constantFrom(...clients), weight: 3 }, { arbitrary: fc.constantFrom(...SWARM_ARBITERS), weight: 1 }),
        atMs,
        extraDelayMs: fc.integer({ min: 500, max: 1_200 }),
        freezeAfterMs: fc.integer({ min: 0, max: 3_000 }),
        freezeForMs: fc.integer({ min: 4_000, max: 12_000 }),
        recoverMs: fc.integer({ min: 500, max: 5_000 }),
      });
    case 'stall-disk':
      return fc.record({ kind: fc.constant(kind), target: fc.constantFrom(...SWARM_MEMBERS), atMs, forMs: fc.integer({ min: 100, max: 8_000 }) });
    case 'clock-drift':
      return fc.record({ kind: fc.constant(kind), target: anyProcess, atMs, ppm: fc.integer({ min: -MAX_DRIFT_PPM, max: MAX_DRIFT_PPM }) });
    case 'advance-epoch':
      return fc.record({ kind: fc.constant(kind), via: fc.constantFrom(...SWARM_ARBITERS), atMs });
    case 'lossy-watch':
      return fc.record({ kind: fc.constant(kind), target: fc.constantFrom(...SWARM_ARBITERS), atMs, forMs: fc.integer({ min: 3_000, max: 25_000 }) });
    case 'lose-answers':
      return fc.record({ kind: fc.constant(kind), target: fc.constantFrom(...SWARM_ARBITERS), atMs, forMs: fc.integer({ min: 1_000, max: 20_000 }), everyNth: fc.integer({ min: 1, max: 4 }), timeoutMs: fc.integer({ min: 0, max: 8_000 }) });
    case 'stuck-member':
      return fc.record({ kind: fc.constant(kind), target: fc.constantFrom(...SWARM_MEMBERS), atMs, forMs: fc.integer({ min: 2_000, max: 20_000 }) });
    case 'restore':
      return fc.record({ kind: fc.constant(kind), atMs, snapshotAgeMs: fc.integer({ min: 500, max: 8_000 }), approvalMs: fc.integer({ min: 1_000, max: 6_000 }), via: fc.constantFrom(...SWARM_ARBITERS) });
  }
}

/** The cuts a real network suffers: one member off, an arbiter off the cluster, a client off its arbiter, a member and an arbiter together off the rest. */
function cut(clients: readonly string[]): fc.Arbitrary<[string[], string[]]> {
  const member = fc.integer({ min: 0, max: SWARM_MEMBERS.length - 1 });
  const arbiter = fc.constantFrom(...SWARM_ARBITERS);
  const others = (i: number): string[] => SWARM_MEMBERS.filter((_, j) => j !== i);
  return fc.oneof(
    member.map((i): [string[], string[]] => [[SWARM_MEMBERS[i] as string], others(i)]),
    arbiter.map((a): [string[], string[]] => [[a], [...SWARM_MEMBERS]]),
    fc.integer({ min: 0, max: clients.length - 1 }).map((c): [string[], string[]] => [[clients[c] as string], [SWARM_ARBITERS[arbiterIndexOf(c)] as string]]),
    fc.tuple(member, arbiter).map(([i, a]): [string[], string[]] => [[SWARM_MEMBERS[i] as string, a], others(i)]),
  );
}

/** Slow links where a lock service's answers travel: client to its arbiter, arbiter to the cluster. */
function slowPair(clients: readonly string[]): fc.Arbitrary<[string[], string[]]> {
  return fc.oneof(
    fc.integer({ min: 0, max: clients.length - 1 }).map((c): [string[], string[]] => [[clients[c] as string], [SWARM_ARBITERS[arbiterIndexOf(c)] as string]]),
    fc.constantFrom(...SWARM_ARBITERS).map((a): [string[], string[]] => [[a], [...SWARM_MEMBERS]]),
  );
}

/** Plain fault data, in the order episodes were drawn; ids name each episode's partition or slow link. */
export function toFaults(episodes: readonly Episode[]): Fault[] {
  return episodes.flatMap((episode, i): Fault[] => {
    switch (episode.kind) {
      case 'pause':
        return [{ atMs: episode.atMs, kind: 'pause', target: episode.target, forMs: episode.forMs }];
      case 'crash': {
        const crash: Fault = { atMs: episode.atMs, kind: 'crash', target: episode.target, ...(episode.powerLoss ? { powerLoss: true } : {}) };
        // A client's library does not come back with its process in the simulator: its machine stays down.
        if (episode.target.startsWith('client-')) return [crash];
        return [crash, { atMs: episode.atMs + episode.downMs, kind: 'restart', target: episode.target }];
      }
      case 'partition':
        return [
          { atMs: episode.atMs, kind: 'partition', id: `p${i}`, from: episode.from, to: episode.to, ...(episode.oneWay ? { oneWay: true } : {}) },
          { atMs: episode.atMs + episode.forMs, kind: 'heal', id: `p${i}` },
        ];
      case 'slow-link':
        return [
          { atMs: episode.atMs, kind: 'slow-link', id: `s${i}`, from: episode.from, to: episode.to, extraDelayMs: episode.extraDelayMs, ...(episode.oneWay ? { oneWay: true } : {}) },
          { atMs: episode.atMs + episode.forMs, kind: 'heal', id: `s${i}` },
        ];
      case 'brownout':
        return [{ atMs: episode.atMs, kind: 'brownout', target: episode.target, extraDelayMs: episode.extraDelayMs, freezeAfterMs: episode.freezeAfterMs, freezeForMs: episode.freezeForMs, recoverMs: episode.recoverMs }];
      case 'stall-disk':
        return [{ atMs: episode.atMs, kind: 'stall-disk', target: episode.target, durationMs: episode.forMs }];
      case 'clock-drift':
        return [{ atMs: episode.atMs, kind: 'clock-drift', target: episode.target, ppm: episode.ppm }];
      case 'advance-epoch':
        return [{ atMs: episode.atMs, kind: 'advance-epoch', via: episode.via }];
      case 'lossy-watch':
      case 'stuck-member':
        return [{ atMs: episode.atMs, kind: episode.kind, target: episode.target, forMs: episode.forMs }];
      case 'lose-answers':
        return [{ atMs: episode.atMs, kind: 'lose-answers', target: episode.target, forMs: episode.forMs, everyNth: episode.everyNth, timeoutMs: episode.timeoutMs }];
      case 'restore':
        return [
          // docs/seal-and-epochs.md: stop the arbiters, restore with a new token, start them: no grant can be
          // in flight into the restored log (one that is commits a token already issued before the seal).
          // Only a backup of the current epoch: stopped arbiters forget the epochs they served, so an older
          // backup would bring an epoch back (ADR-03's coord-cluster allocation is not built yet).
          { atMs: episode.atMs, kind: 'restore', snapshotAtMs: Math.max(0, episode.atMs - episode.snapshotAgeMs), clusterToken: `restored-${i}`, arbiters: 'restart', ifEpochUnchanged: true },
          { atMs: episode.atMs + episode.approvalMs, kind: 'advance-epoch', via: episode.via },
        ];
    }
  });
}
