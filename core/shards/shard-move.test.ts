// The move procedure alone (ADR-09, issue 19) on in-memory ports: a map store, a journal, two shards'
// arbiters that know only their epoch and the two-person advance. The simulator runs the same code against
// real arbiters and etcd (scenarios/shard-move.ts).
import { describe, expect, it } from 'vitest';
import { LockError, isLockError } from '../lock-error.js';
import { authenticated } from '../ports/caller.js';
import type { TwoOperators } from '../arbiter/two-person.js';
import { type MoveArbiter, type MoveRecord, type MoveStep, MOVE_STEPS, type ShardMovePorts, runShardMove } from './shard-move.js';
import { type ShardMap, homeOf } from './shard-map.js';

const ANA = authenticated('spiffe://ops/ana');
const BEN = authenticated('spiffe://ops/ben');
const OPERATORS: TwoOperators = [ANA, BEN];
const RANGE = 'orders/c-1';
const START: ShardMap = { version: 1, regions: { eu: { coord: 'coord-eu', entity: ['shard-a', 'shard-b', 'shard-c'] } }, namespaces: { orders: 'eu' }, overrides: { [RANGE]: 'shard-a' } };
const REQUEST = { range: RANGE, from: 'shard-a', to: 'shard-c', reason: 'rebalance onto the new shard-c', operators: OPERATORS } as const;

/** A shard's arbiter as the move sees it: an epoch, and an advance that takes a requester and a different approver. */
function fakeArbiter(epoch: { value: number }, advances: string[], shard: string): MoveArbiter {
  return {
    status: async () => ({ epoch: epoch.value, clusterId: 1n, sealed: undefined }),
    requestEpochAdvance: async (caller, request) => ({ requestId: `${shard}-${advances.length}`, requester: caller.identity, reason: request.reason }),
    approveEpochAdvance: async (caller) => {
      epoch.value += 1;
      advances.push(`${shard} by ${caller.identity}`);
      return { epoch: epoch.value, clusterId: 1n, holdsDeleted: 0, requester: ANA.identity, approver: caller.identity };
    },
  };
}

interface Fixture {
  readonly ports: ShardMovePorts;
  readonly map: () => ShardMap;
  readonly journal: Map<string, MoveRecord>;
  readonly advances: string[];
  readonly epochs: Record<string, { value: number }>;
  readonly maps: ShardMap[];
  holdsLeft: number;
}

function setUp(options: { crashAfter?: MoveStep; crashBeforeRecording?: MoveStep; forgetfulJournal?: boolean } = {}): Fixture {
  let nowMs = 0;
  let stored = START;
  let crashedAfter = false;
  let crashedBefore = false;
  const advances: string[] = [];
  const epochs = { 'shard-a': { value: 1 }, 'shard-c': { value: 1 } } as Record<string, { value: number }>;
  const journal = new Map<string, MoveRecord>();
  const fixture: Fixture = {
    map: () => stored,
    journal,
    advances,
    epochs,
    maps: [START],
    holdsLeft: 0,
    ports: {
      clock: { now: () => nowMs, sleep: async (ms) => void (nowMs += ms) },
      maps: {
        read: async () => stored,
        replace: async (expected, next) => {
          if (expected.version !== stored.version) return false;
          stored = { ...next, version: stored.version + 1 };
          fixture.maps.push(stored);
          return true;
        },
      },
      journal: {
        load: async (range) => (options.forgetfulJournal === true ? undefined : journal.get(range)),
        save: async (record) => {
          if (record.step === options.crashBeforeRecording && !crashedBefore) {
            crashedBefore = true;
            throw new Error(`crash before recording ${record.step} (test)`);
          }
          journal.set(record.range, record);
        },
      },
      arbiterOf: (shard) => fakeArbiter(epochs[shard] ?? { value: 0 }, advances, shard),
      holdsIn: async () => (fixture.holdsLeft-- > 0 ? 'held' : 'none'),
      afterStep: (step) => {
        if (step === options.crashAfter && !crashedAfter) {
          crashedAfter = true;
          throw new Error(`crash after ${step} (test)`);
        }
      },
    },
  };
  return fixture;
}

/** Runs the move; a crash (a test error) is followed by one run again, as an operator would. */
async function moveResuming(fixture: Fixture): Promise<{ record: MoveRecord; crashes: number }> {
  try {
    return { record: await runShardMove(fixture.ports, REQUEST), crashes: 0 };
  } catch (error) {
    if (error instanceof LockError) throw error;
    return { record: await runShardMove(fixture.ports, REQUEST), crashes: 1 };
  }
}

describe('runShardMove (ADR-09)', () => {
  it('pins, drains, waits for holds, advances the destination above the source, then flips', async () => {
    const fixture = setUp();
    fixture.holdsLeft = 3;
    const { record } = await moveResuming(fixture);
    expect(record.step).toBe('flipped');
    expect(homeOf(fixture.map(), RANGE, 'entity').cluster).toBe('shard-c');
    expect(fixture.map().draining ?? []).toEqual([]);
    // The map was drained before the flip, and the range never took grants on shard-c while draining.
    const drained = fixture.maps.findIndex((m) => (m.draining ?? []).includes(RANGE));
    const flipped = fixture.maps.findIndex((m) => homeOf(m, RANGE, 'entity').cluster === 'shard-c');
    expect(drained).toBeGreaterThan(0);
    expect(flipped).toBeGreaterThan(drained);
    expect(fixture.advances).toEqual(['shard-c by spiffe://ops/ben']);
    expect(fixture.epochs['shard-c']?.value).toBeGreaterThan(fixture.epochs['shard-a']?.value ?? Infinity);
    expect(fixture.holdsLeft).toBeLessThan(0); // it polled until the holds ended
  });

  it.each(MOVE_STEPS.filter((step) => step !== 'requested'))('resumes after a crash right after recording %s: same end, one advance', async (step) => {
    const fixture = setUp({ crashAfter: step });
    const { record, crashes } = await moveResuming(fixture);
    expect(crashes).toBe(1);
    expect(record.step).toBe('flipped');
    expect(homeOf(fixture.map(), RANGE, 'entity').cluster).toBe('shard-c');
    expect(fixture.advances).toHaveLength(1);
  });

  it.each(MOVE_STEPS)('resumes after a crash between the effect of %s and its record: the effect is not repeated', async (step) => {
    const fixture = setUp({ crashBeforeRecording: step });
    const { record, crashes } = await moveResuming(fixture);
    expect(crashes).toBe(1);
    expect(record.step).toBe('flipped');
    expect(homeOf(fixture.map(), RANGE, 'entity').cluster).toBe('shard-c');
    expect(fixture.advances).toHaveLength(1); // a crash after the advance did not advance again
    expect(fixture.map().draining ?? []).toEqual([]);
  });

  it('its negative control: without the journal a re-run starts over, and its first step refuses (the range moved already)', async () => {
    const fixture = setUp({ crashAfter: 'flipped', forgetfulJournal: true });
    const again = await moveResuming(fixture).then(() => 'done', (error: unknown) => (isLockError(error) ? error.code : String(error)));
    expect(again).toBe('invalid-argument');
  });

  it('leaves a range whose holds outlive the drain window drained, and a later run completes it', async () => {
    const fixture = setUp();
    fixture.holdsLeft = 1_000;
    const first = await runShardMove(fixture.ports, REQUEST, { drainWaitMs: 1_000 }).then(() => 'done', (error: unknown) => (isLockError(error) ? error.code : String(error)));
    expect(first).toBe('unavailable');
    expect(fixture.journal.get(RANGE)?.step).toBe('draining');
    expect(fixture.map().draining).toEqual([RANGE]);
    expect(fixture.advances).toEqual([]);
    fixture.holdsLeft = 0;
    expect((await runShardMove(fixture.ports, REQUEST)).step).toBe('flipped');
  });

  it('refuses one person as both operators, a destination outside the map, and a range not on its source', async () => {
    const codeOf = (promise: Promise<unknown>) => promise.then(() => 'done', (error: unknown) => (isLockError(error) ? error.code : String(error)));
    expect(await codeOf(runShardMove(setUp().ports, { ...REQUEST, operators: [ANA, ANA] }))).toBe('approval-required');
    expect(await codeOf(runShardMove(setUp().ports, { ...REQUEST, to: 'shard-z' }))).toBe('invalid-argument');
    expect(await codeOf(runShardMove(setUp().ports, { ...REQUEST, from: 'shard-b' }))).toBe('invalid-argument');
    const nothingWritten = setUp();
    await codeOf(runShardMove(nothingWritten.ports, { ...REQUEST, operators: [ANA, ANA] }));
    expect([nothingWritten.maps.length, nothingWritten.journal.size]).toEqual([1, 0]);
  });
});
