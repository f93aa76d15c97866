// The gate's fault schedule drawn from --seed (issue 15): episodes of one fault each, with time to
// recover between them, until the run's end less a quiet tail. The first few episodes are the ones a
// short run must have (a holder's pause, a member's kill and restart, the leader's isolation, the
// leader's pause); then the others (a holder cut off from the arbiters among them) in a seeded order, again and again, so a
// 5-minute run has each at least once. Plain data (scenarios/faults.ts), checked by the one validator
// (checkFaultSchedule) like a schedule from a file. Deterministic per seed: seedrandom, as elsewhere.
import type { Fault } from '../../scenarios/faults.js';
import { createSeededRandom } from '../clock/index.js';
import { GATE_TTL_SECONDS } from './real-cluster.js';

export interface ScheduleShape {
  readonly durationMs: number;
  readonly members: readonly string[];
  readonly arbiters: readonly string[];
  readonly clients: readonly string[];
  /** Clients that start under a clock of their own already (--slow-holder's client-1): not drawn for a drift. */
  readonly clockedClients?: readonly string[];
  /** --focus: this episode alone, again and again, and no clock drift (issue 32: draws of one kind). */
  readonly only?: Episode;
}

export type Episode = 'pause-holder' | 'crash-member' | 'isolate-leader' | 'pause-leader' | 'pause-follower' | 'pause-arbiter' | 'crash-arbiter' | 'slow-leader' | 'pause-resume' | 'step-arbiter' | 'isolate-holder';

const FIRST: readonly Episode[] = ['pause-holder', 'crash-member', 'isolate-leader', 'pause-leader'];
const REST: readonly Episode[] = ['pause-follower', 'pause-arbiter', 'crash-arbiter', 'slow-leader', 'pause-resume', 'step-arbiter', 'isolate-holder'];
/** The episodes --focus may name. */
export const FOCUS_KINDS: readonly Episode[] = [...FIRST, ...REST];
const START_MS = 3_000;
const QUIET_TAIL_MS = 6_000;
const RECOVER_MS: readonly [number, number] = [2_000, 4_000];
/** A holder's pause must outlast its lease for the log to expire the hold and grant the key on. */
const HOLDER_PAUSE_MS: readonly [number, number] = [GATE_TTL_SECONDS * 1000 + 2_000, GATE_TTL_SECONDS * 1000 + 4_000];
/** A drift ADR-12's one-second margin covers at a 5 s TTL (up to 5%: 250 ms over the TTL). */
const DRIFT_PPM: readonly [number, number] = [10_000, 50_000];

/** The seeded draws one schedule shares, in the order they are taken (the schedule is the seed's). */
interface Draws {
  readonly random: { next(): number };
  between(range: readonly [number, number]): number;
  pick<T>(items: readonly T[]): T;
}

interface DrawnEpisode {
  readonly faults: Fault[];
  readonly lengthMs: number;
}

export function drawSchedule(seed: string, shape: ScheduleShape): Fault[] {
  const random = createSeededRandom(`gate-schedule/${seed}`);
  const between = (range: readonly [number, number]): number => Math.round(range[0] + random.next() * (range[1] - range[0]));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random.next() * items.length)] as T;
  const shuffled = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  };
  const draws: Draws = { random, between, pick };
  const faults: Fault[] = [];
  // Clock drift is a property of a process from its start (libfaketime): one client runs fast or slow.
  const driftable = shape.clients.filter((c) => !(shape.clockedClients ?? []).includes(c));
  if (driftable.length > 0 && shape.only === undefined) faults.push({ atMs: 0, kind: 'clock-drift', target: pick(driftable), ppm: (random.next() < 0.5 ? -1 : 1) * between(DRIFT_PPM) });
  const endMs = shape.durationMs - QUIET_TAIL_MS;
  let atMs = START_MS;
  let ids = 0; // an episode takes an id whether or not it can be drawn
  const order: Episode[] = shape.only === undefined ? [...shuffled(FIRST), ...shuffled(REST)] : [shape.only];
  for (let i = 0; ; i++) {
    if (i === order.length) order.push(...(shape.only === undefined ? shuffled([...FIRST, ...REST]) : [shape.only]));
    const episode = order[i] as Episode;
    const drawn = drawEpisode(episode, atMs, `p${++ids}`, shape, draws);
    if (drawn === undefined && shape.only !== undefined) break; // the one episode cannot be drawn here (no arbiter)
    if (drawn === undefined) continue;
    if (atMs + drawn.lengthMs > endMs) break;
    faults.push(...drawn.faults);
    atMs += drawn.lengthMs + between(RECOVER_MS);
  }
  return faults;
}

/** One episode at `at`, or undefined when it cannot be drawn here (an arbiter's episode with no arbiter). */
function drawEpisode(episode: Episode, at: number, id: string, shape: ScheduleShape, draws: Draws): DrawnEpisode | undefined {
  const { random, between, pick } = draws;
  const arbiter = shape.arbiters.length === 0 ? undefined : pick(shape.arbiters);
  switch (episode) {
    case 'pause-holder': {
      const forMs = between(HOLDER_PAUSE_MS);
      return { faults: [{ atMs: at, kind: 'pause', target: '@holder', forMs }], lengthMs: forMs };
    }
    case 'pause-leader':
    case 'pause-follower': {
      const forMs = between([1_500, 4_000]);
      return { faults: [{ atMs: at, kind: 'pause', target: episode === 'pause-leader' ? '@leader' : '@follower', forMs }], lengthMs: forMs };
    }
    case 'pause-resume': {
      const forMs = between([1_000, 3_000]);
      const member = pick(shape.members);
      return { faults: [{ atMs: at, kind: 'pause', target: member }, { atMs: at + forMs, kind: 'resume', target: member }], lengthMs: forMs };
    }
    case 'crash-member': {
      const downMs = between([2_000, 5_000]);
      // A role resolves anew at the restart (to a running member, which is skipped), so the restart names
      // every member: the one that is down comes back, the others are skipped and logged.
      const crash: Fault = { atMs: at, kind: 'crash', target: random.next() < 0.5 ? '@leader' : '@follower' };
      return { faults: [crash, ...shape.members.map((member): Fault => ({ atMs: at + downMs, kind: 'restart', target: member }))], lengthMs: downMs };
    }
    case 'crash-arbiter': {
      if (arbiter === undefined) return undefined;
      const downMs = between([1_500, 4_000]);
      return { faults: [{ atMs: at, kind: 'crash', target: arbiter }, { atMs: at + downMs, kind: 'restart', target: arbiter }], lengthMs: downMs };
    }
    case 'pause-arbiter': {
      if (arbiter === undefined) return undefined;
      const forMs = between([1_500, 4_000]);
      return { faults: [{ atMs: at, kind: 'pause', target: arbiter, forMs }], lengthMs: forMs };
    }
    case 'isolate-leader': {
      const forMs = between([3_000, 6_000]);
      return { faults: [{ atMs: at, kind: 'partition', id, from: ['@leader'], to: [...shape.members] }, { atMs: at + forMs, kind: 'heal', id }], lengthMs: forMs };
    }
    case 'isolate-holder': {
      // A holder cut off from every arbiter past its lease: its library fences at its deadline, the log
      // expires the hold, the key goes on to another client (the cut-off holder of ADR-12).
      const forMs = between(HOLDER_PAUSE_MS);
      return { faults: [{ atMs: at, kind: 'partition', id, from: ['@holder'], to: [...shape.arbiters] }, { atMs: at + forMs, kind: 'heal', id }], lengthMs: forMs };
    }
    case 'slow-leader': {
      const forMs = between([3_000, 6_000]);
      return { faults: [{ atMs: at, kind: 'slow-link', id, from: ['@leader'], to: [...shape.arbiters], extraDelayMs: between([50, 300]) }, { atMs: at + forMs, kind: 'heal', id }], lengthMs: forMs };
    }
    case 'step-arbiter': {
      if (arbiter === undefined) return undefined;
      const deltaMs = (random.next() < 0.5 ? -1 : 1) * between([5_000, 60_000]);
      return { faults: [{ atMs: at, kind: 'clock-step', target: arbiter, deltaMs }], lengthMs: 1_000 };
    }
  }
}
