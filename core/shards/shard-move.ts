// ADR-09's range move as the procedure an operator runs (issue 19): a resumable state machine over ports,
// driven from src/ (`lockstep shards move`) against real clusters and from scenarios/shard-move.ts in the
// simulator. Its steps, each recorded in the move's journal (the coord cluster's /sys/moves/<range>)
// once done:
//   requested → pinned   the range is kept on its source by an override (a map change elsewhere cannot move it)
//   pinned    → draining the map lists it as draining: its arbiters refuse new grants (ADR-09)
//   draining  → drained  no hold in the range is left on the source (bounded by the drain window)
//   drained   → advanced the destination's epoch is above the source's, by two-person advances (ADR-03/20):
//                        its tokens start above every token the source issued, whatever its revisions
//   advanced  → flipped  the map homes the range on the destination and it takes grants again
// A step is recorded only after its effect, and every effect is idempotent (move-map.ts; an advance is
// made only while the destination is not yet above the source), so a controller that crashes at any point
// and runs the move again resumes where it was, without a second advance or a skipped step.
import { LockError } from '../lock-error.js';
import type { ArbiterService, Caller } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { checkReason } from '../arbiter/approvals.js';
import { type TwoOperators, advanceEpochByTwo } from '../arbiter/two-person.js';
import { type RangeMove, checkMovable, drainRange, flipRange, pinRange, sameMap } from './move-map.js';
import { type ShardMap, homeOf } from './shard-map.js';
import { assert } from '../assert.js';

export const MOVE_STEPS = ['requested', 'pinned', 'draining', 'drained', 'advanced', 'flipped'] as const;
export type MoveStep = (typeof MOVE_STEPS)[number];

export interface MoveRecord extends RangeMove {
  readonly step: MoveStep;
  readonly reason: string;
  readonly requester: string;
  readonly approver: string;
}

/** The versioned map on the coord cluster (/sys/shardmap). */
export interface ShardMapStore {
  read(): Promise<ShardMap>;
  /** Writes `next` with version `expected.version + 1` if the stored map is still `expected`'s version; false if it moved. */
  replace(expected: ShardMap, next: ShardMap): Promise<boolean>;
}

/** The moves' journal on the coord cluster (/sys/moves/<range>). */
export interface MoveJournal {
  load(range: string): Promise<MoveRecord | undefined>;
  save(record: MoveRecord): Promise<void>;
}

/** What the move asks of a shard's arbiter: its epoch, and ADR-03's two-person advance. */
export type MoveArbiter = Pick<ArbiterService, 'status' | 'requestEpochAdvance' | 'approveEpochAdvance'>;

export interface ShardMovePorts {
  readonly clock: Clock;
  readonly maps: ShardMapStore;
  readonly journal: MoveJournal;
  /** lock.v1/admin.v1 of an arbiter serving `shard`: its status (epoch) and the two-person advance. */
  arbiterOf(shard: string): MoveArbiter;
  /** Whether `shard`'s log holds any hold in `range`: 'unknown' when it could not be read. */
  holdsIn(shard: string, range: string): Promise<'none' | 'held' | 'unknown'>;
  /** Called after each recorded step: the scenario's timeline, and its crash points (a throw here is a crash after the record). */
  readonly afterStep?: (step: MoveStep) => void;
}

export interface ShardMoveRequest extends RangeMove {
  readonly reason: string;
  /** A requester and a different approver (ADR-20), as for an epoch advance; they also approve the destination's advance. */
  readonly operators: TwoOperators;
}

/** ADR-09's drain window: a range whose holds outlive it stays drained, and the move is run again to resume. */
export const DEFAULT_DRAIN_WAIT_MS = 45_000;
const POLL_MS = 100;
/** Map writes lost to another writer before giving up (TigerStyle: a limit on every retry loop). */
const MAX_MAP_RETRIES = 16;
const MAX_ADVANCES = 4;

export interface ShardMoveOptions {
  readonly drainWaitMs?: number;
  /**
   * Test support only (scenarios/shard-move.ts's violation variants, like core/arbiter/seams.ts): steps
   * whose effect is left out, each still recorded. Honest: none. Leaving out `draining` and `drained` lets
   * two shards hold one key; leaving out `advanced` lets a moved key's token go backwards.
   */
  readonly skipSteps?: readonly MoveStep[];
}

/** Runs the move of `request.range` from its recorded step to the end; resolves with the final record. */
export async function runShardMove(ports: ShardMovePorts, request: ShardMoveRequest, options: ShardMoveOptions = {}): Promise<MoveRecord> {
  let record = await begin(ports, request);
  const drainWaitMs = options.drainWaitMs ?? DEFAULT_DRAIN_WAIT_MS;
  while (record.step !== 'flipped') {
    const next = MOVE_STEPS[MOVE_STEPS.indexOf(record.step) + 1];
    assert(next !== undefined, () => `shard move: no step after ${record.step}`);
    if (options.skipSteps?.includes(next) !== true) await perform(ports, request, record, next, drainWaitMs);
    record = { ...record, step: next };
    await ports.journal.save(record);
    ports.afterStep?.(next);
  }
  return record;
}

/** Checks the request and the two people; resumes a recorded move of the same range, or records a new one. */
async function begin(ports: ShardMovePorts, request: ShardMoveRequest): Promise<MoveRecord> {
  const [requester, approver] = request.operators;
  checkTwo(requester, approver);
  const reason = checkReason(request.reason);
  const recorded = await ports.journal.load(request.range);
  const map = await ports.maps.read();
  const same = recorded !== undefined && recorded.from === request.from && recorded.to === request.to;
  if (recorded !== undefined && recorded.step !== 'flipped') {
    if (!same) throw new LockError('invalid-argument', `range ${request.range} is already moving from ${recorded.from} to ${recorded.to} (step ${recorded.step}); run that move again to resume it`);
    return recorded;
  }
  // This very move, finished (a controller that crashed after its last step, run again): nothing to do.
  if (same && homeOf(map, request.range, 'entity').cluster === request.to) return recorded;
  checkMovable(map, request);
  const record: MoveRecord = { range: request.range, from: request.from, to: request.to, step: 'requested', reason, requester: requester.identity, approver: approver.identity };
  await ports.journal.save(record);
  return record;
}

function checkTwo(requester: Caller, approver: Caller): void {
  if (!requester.authenticated || !approver.authenticated) throw new LockError('unauthenticated', 'a shard move needs two authenticated operators (ADR-20)');
  if (requester.identity === approver.identity) throw new LockError('approval-required', `requester and approver are both ${requester.identity}; a second, different operator must approve (ADR-20)`);
}

async function perform(ports: ShardMovePorts, request: ShardMoveRequest, record: MoveRecord, step: MoveStep, drainWaitMs: number): Promise<void> {
  switch (step) {
    case 'pinned':
      return changeMap(ports, (map) => pinRange(map, record));
    case 'draining':
      return changeMap(ports, (map) => drainRange(map, record));
    case 'drained':
      return waitForHolds(ports, record, drainWaitMs);
    case 'advanced':
      return advanceAbove(ports, request, record);
    case 'flipped':
      return changeMap(ports, (map) => flipRange(map, record));
    case 'requested':
      return assert(false, 'shard move: requested is where a move starts, not a step');
  }
}

async function changeMap(ports: ShardMovePorts, change: (map: ShardMap) => ShardMap): Promise<void> {
  for (let tries = 1; tries <= MAX_MAP_RETRIES; tries += 1) {
    const current = await ports.maps.read();
    const next = change(current);
    if (sameMap(current, next)) return; // done before a crash: nothing to write
    if (await ports.maps.replace(current, next)) return;
  }
  throw new LockError('stale', `the shard map kept changing under the move (${MAX_MAP_RETRIES} writes lost); run the move again to resume`);
}

async function waitForHolds(ports: ShardMovePorts, move: RangeMove, drainWaitMs: number): Promise<void> {
  const untilMs = ports.clock.now() + drainWaitMs;
  for (;;) {
    const holds = await ports.holdsIn(move.from, move.range);
    if (holds === 'none') return;
    if (ports.clock.now() >= untilMs) {
      throw new LockError('unavailable', `range ${move.range} still has holds on ${move.from} (${holds}) after the ${drainWaitMs} ms drain window; it stays drained: run the move again to resume once they end (ADR-09)`);
    }
    await ports.clock.sleep(POLL_MS);
  }
}

/** Advances the destination until its epoch is above the source's; none when it already is (a resumed move). */
async function advanceAbove(ports: ShardMovePorts, request: ShardMoveRequest, move: RangeMove): Promise<void> {
  const epochOf = async (shard: string): Promise<number> => {
    const epoch = (await ports.arbiterOf(shard).status(request.operators[0])).epoch;
    if (epoch === undefined) throw new LockError('unavailable', `the arbiter of ${shard} reports no epoch (sealed or unreadable); open it first, then run the move again`);
    return epoch;
  };
  for (let advances = 0; ; advances += 1) {
    const [from, to] = [await epochOf(move.from), await epochOf(move.to)];
    if (to > from) return;
    if (advances >= MAX_ADVANCES) throw new LockError('stale', `${move.to}'s epoch ${to} is still not above ${move.from}'s ${from} after ${advances} advances; run the move again`);
    await advanceEpochByTwo(ports.arbiterOf(move.to), request.operators, `shard move of ${move.range} from ${move.from}: its tokens must start above epoch ${from}. ${request.reason}`);
  }
}
