// The two-person front of a range move (issue 19, ADR-20) on in-memory ports: who may request, who may
// approve, what an approval must name, and a recorded move shown and resumed.
import { describe, expect, it } from 'vitest';
import { LockError } from '../lock-error.js';
import { authenticated, unauthenticated } from '../ports/caller.js';
import type { Authorizer } from '../arbiter/policy.js';
import { ShardMoveDesk } from './move-desk.js';
import type { MoveRecord, ShardMovePorts } from './shard-move.js';
import type { ShardMap } from './shard-map.js';

const ANA = authenticated('spiffe://ops/ana');
const BEN = authenticated('spiffe://ops/ben');
const RANGE = 'orders/c-1';
const MOVE = { range: RANGE, from: 'shard-a', to: 'shard-b' } as const;
const OPERATORS: Authorizer = { allows: () => false, operates: (identity) => identity.startsWith('spiffe://ops/') };

function desk(recorded?: MoveRecord): { desk: ShardMoveDesk; map: () => ShardMap; advancedBy: string[] } {
  let nowMs = 0;
  let map: ShardMap = { version: 1, regions: { eu: { coord: 'coord-eu', entity: ['shard-a', 'shard-b'] } }, namespaces: { orders: 'eu' }, overrides: { [RANGE]: 'shard-a' } };
  const journal = new Map<string, MoveRecord>(recorded === undefined ? [] : [[RANGE, recorded]]);
  const epochs: Record<string, number> = { 'shard-a': 3, 'shard-b': 1 };
  const advancedBy: string[] = [];
  const ports: ShardMovePorts = {
    clock: { now: () => nowMs, sleep: async (ms) => void (nowMs += ms) },
    maps: { read: async () => map, replace: async (expected, next) => expected.version === map.version && ((map = { ...next, version: map.version + 1 }), true) },
    journal: { load: async (range) => journal.get(range), save: async (record) => void journal.set(record.range, record) },
    arbiterOf: (shard) => ({
      status: async () => ({ epoch: epochs[shard], clusterId: 1n, sealed: undefined }),
      requestEpochAdvance: async (caller, request) => ({ requestId: 'adv-1', requester: caller.identity, reason: request.reason }),
      approveEpochAdvance: async (caller) => {
        epochs[shard] = (epochs[shard] ?? 0) + 1;
        advancedBy.push(caller.identity);
        return { epoch: epochs[shard] ?? 0, clusterId: 1n, holdsDeleted: 0, requester: ANA.identity, approver: caller.identity };
      },
    }),
    holdsIn: async () => 'none',
  };
  return { desk: new ShardMoveDesk(ports, OPERATORS, ports.clock, 'p-'), map: () => map, advancedBy };
}

const codeOf = (promise: Promise<unknown>): Promise<string> => promise.then(() => 'ok', (error: unknown) => (error instanceof LockError ? error.code : String(error)));

describe('ShardMoveDesk: a range move by two operators', () => {
  it('runs the move on a different operator\'s approval: the destination above the source, the map flipped', async () => {
    const { desk: moves, map, advancedBy } = desk();
    const proposal = await moves.request(ANA, { ...MOVE, reason: 'rebalance onto shard-b' });
    expect(proposal).toMatchObject({ ...MOVE, requester: ANA.identity, recordedStep: undefined });
    const done = await moves.approve(BEN, proposal.requestId, MOVE);
    expect(done).toMatchObject({ record: { step: 'flipped', requester: ANA.identity, approver: BEN.identity }, fromEpoch: 3, mapVersion: map().version });
    expect(done.toEpoch).toBeGreaterThan(done.fromEpoch);
    expect(new Set(advancedBy)).toEqual(new Set([BEN.identity])); // the destination's advances approved by the move's approver
  });

  it('refuses the requester approving, an unauthenticated or non-operator caller, a used request, and an approval naming another move', async () => {
    const { desk: moves } = desk();
    expect(await codeOf(moves.request(unauthenticated('spiffe://ops/eve'), { ...MOVE, reason: 'rebalance onto shard-b' }))).toBe('unauthenticated');
    expect(await codeOf(moves.request(authenticated('spiffe://app/worker'), { ...MOVE, reason: 'rebalance onto shard-b' }))).toBe('denied');
    expect(await codeOf(moves.request(ANA, { ...MOVE, reason: 'short' }))).toBe('approval-required');
    expect(await codeOf(moves.request(ANA, { ...MOVE, from: 'shard-b', reason: 'rebalance onto shard-b' }))).toBe('invalid-argument'); // not homed there
    const proposal = await moves.request(ANA, { ...MOVE, reason: 'rebalance onto shard-b' });
    expect(await codeOf(moves.approve(ANA, proposal.requestId, MOVE))).toBe('approval-required');
    expect(await codeOf(moves.approve(authenticated('spiffe://app/worker'), proposal.requestId, MOVE))).toBe('denied');
    expect(await codeOf(moves.approve(BEN, proposal.requestId, { ...MOVE, range: 'orders/c-2' }))).toBe('invalid-argument');
    // Check, then change (issue 28): the refused approvals above consumed nothing; the request still waits.
    expect(await codeOf(moves.approve(BEN, proposal.requestId, MOVE))).toBe('ok');
    expect(await codeOf(moves.approve(BEN, proposal.requestId, MOVE))).toBe('stale');
  });

  it('shows a recorded move being resumed, and refuses another move of the same range while it is unfinished', async () => {
    const recorded: MoveRecord = { ...MOVE, step: 'draining', reason: 'rebalance onto shard-b', requester: ANA.identity, approver: BEN.identity };
    const { desk: moves } = desk(recorded);
    expect(await codeOf(moves.request(ANA, { ...MOVE, to: 'shard-c', reason: 'rebalance onto shard-c' }))).toBe('invalid-argument');
    const proposal = await moves.request(BEN, { ...MOVE, reason: 'resume the move onto shard-b' });
    expect(proposal.recordedStep).toBe('draining');
    expect((await moves.approve(ANA, proposal.requestId, MOVE)).record.step).toBe('flipped');
  });
});
