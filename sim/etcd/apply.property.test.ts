// Property tests of apply: determinism across members (what the Raft-safety tests will rely on) and
// agreement with a naive key → value model.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Compare, RequestOp, TxnRequest } from '../../core/ports/lock-log.js';
import { leaseId, revision } from '../../core/units.js';
import { applyRequest, createEtcdState, stateDigest, type EtcdRequest, type EtcdState } from './apply.js';
import { compareKeys } from './key-order.js';
import { validateTxn } from './txn-validate.js';
import type { WatchDelivery } from './watch-hub.js';

const keys = fc.constantFrom('a', 'b', '/p/a', '/p/b', '/q/1');
const prefixes = fc.constantFrom('/p/', '/q/', '');
const values = fc.constantFrom('', 'x', 'y', '\u{1F600}');
const leases = fc.integer({ min: 0, max: 3 }).map((n) => leaseId(BigInt(n)));

const requestOp: fc.Arbitrary<RequestOp> = fc.oneof(
  fc.record({ type: fc.constant('range' as const), key: keys, limit: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ type: fc.constant('range' as const), key: prefixes, prefix: fc.constant(true) }),
  fc.record({ type: fc.constant('put' as const), key: keys, value: values, lease: leases, prevKv: fc.boolean() }),
  fc.record({ type: fc.constant('delete' as const), key: keys, prevKv: fc.boolean() }),
  fc.record({ type: fc.constant('delete' as const), key: prefixes, prefix: fc.constant(true), prevKv: fc.boolean() }),
);

const compareOp = fc.constantFrom('=' as const, '!=' as const, '<' as const, '>' as const);
const compare: fc.Arbitrary<Compare> = fc.oneof(
  fc.record({ key: keys, target: fc.constantFrom('create' as const, 'mod' as const, 'version' as const, 'lease' as const), op: compareOp, value: fc.bigInt({ min: 0n, max: 6n }) }),
  fc.record({ key: keys, target: fc.constant('value' as const), op: compareOp, value: values }),
);

const txnRequest: fc.Arbitrary<TxnRequest> = fc
  .record({
    compare: fc.array(compare, { maxLength: 2 }),
    success: fc.array(requestOp, { maxLength: 3 }),
    failure: fc.array(requestOp, { maxLength: 2 }),
  })
  .filter((request) => validateTxn(request) === undefined);

const etcdRequest: fc.Arbitrary<EtcdRequest> = fc.oneof(
  { weight: 6, arbitrary: txnRequest.map((request) => ({ kind: 'txn' as const, txn: request })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lease-grant' as const), id: leases, ttlSeconds: fc.integer({ min: 0, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lease-revoke' as const), id: leases }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('lease-checkpoint' as const),
      checkpoints: fc.array(fc.record({ id: leases, remainingTtlSeconds: fc.integer({ min: 0, max: 20 }) }), { maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 30 }).map((n) => ({ kind: 'compaction' as const, revision: revision(BigInt(n)) })) },
);

/** Turns an outcome into plain data, so two members' answers compare with toEqual. */
function plain(state: EtcdState, request: EtcdRequest, nowMs: number): unknown {
  const outcome = applyRequest(state, request, nowMs);
  return outcome.ok ? outcome.value : { code: outcome.error.code, message: outcome.error.message, compactRevision: outcome.error.compactRevision };
}

function watched(state: EtcdState): WatchDelivery[] {
  const received: WatchDelivery[] = [];
  state.watches.watch({ key: '', prefix: true, prevKv: true }, (delivery) => received.push(delivery));
  state.watches.watch({ key: '/p/', prefix: true }, (delivery) => received.push(delivery));
  return received;
}

describe('apply determinism (every member applies the same entries and ends in the same state)', () => {
  it('gives a leader and a follower equal digests, responses and watch deliveries', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(etcdRequest, fc.integer({ min: 0, max: 3_000 })), { maxLength: 60 }), (steps) => {
        const leader = createEtcdState();
        const follower = createEtcdState();
        leader.lessor.promote(1_000, 0);
        const leaderSaw = watched(leader);
        const followerSaw = watched(follower);
        let nowMs = 0;
        const applyBoth = (request: EtcdRequest) => expect(plain(leader, request, nowMs)).toEqual(plain(follower, request, nowMs));
        for (const [request, elapsedMs] of steps) {
          nowMs += elapsedMs;
          applyBoth(request);
          // The leader proposes a revoke for each expired lease, as etcdserver revokeExpiredLeases does.
          for (const id of leader.lessor.findExpiredLeases(nowMs)) applyBoth({ kind: 'lease-revoke', id });
          leader.watches.sync();
          follower.watches.sync();
          // A later watcher from revision 2 catches up from history, or learns it was compacted.
          if (nowMs % 7 === 0) {
            for (const [state, saw] of [[leader, leaderSaw], [follower, followerSaw]] as const) {
              state.watches.watch({ key: '', prefix: true, startRevision: revision(2n) }, (delivery) => saw.push(delivery));
            }
          }
        }
        expect(stateDigest(leader)).toBe(stateDigest(follower));
        expect(leaderSaw).toEqual(followerSaw);
      }),
      { numRuns: 300 },
    );
  });
});

describe('apply agrees with a naive key → value model', () => {
  /** The model: a map and a revision that moves when a txn changes something. */
  interface Model {
    readonly data: Map<string, string>;
    rev: number;
  }

  const inRange = (key: string, op: { key: string; prefix?: boolean }) => (op.prefix === true ? key.startsWith(op.key) : key === op.key);

  function modelCompare(model: Model, check: Compare): boolean {
    const value = model.data.get(check.key);
    if (check.target !== 'value' && check.target !== 'version') return true;
    if (value === undefined && check.target === 'value') return false;
    const order = check.target === 'value' ? compareKeys(value as string, check.value) : value === undefined ? Number(0n - check.value) : 1;
    return { '=': order === 0, '!=': order !== 0, '<': order < 0, '>': order > 0 }[check.op];
  }

  function modelTxn(model: Model, request: TxnRequest): unknown[] {
    const ops = request.compare.every((check) => modelCompare(model, check)) ? request.success : request.failure;
    let changed = false;
    const seen: unknown[] = [];
    for (const op of ops) {
      const matching = [...model.data.keys()].filter((key) => inRange(key, op)).sort(compareKeys);
      if (op.type === 'range') seen.push(matching.map((key) => [key, model.data.get(key)]));
      if (op.type === 'put') {
        model.data.set(op.key, op.value);
        changed = true;
      }
      if (op.type === 'delete') {
        for (const key of matching) model.data.delete(key);
        changed ||= matching.length > 0;
      }
    }
    if (changed) model.rev++;
    return seen;
  }

  // Version compares against 0 only (exists or not): the model has no versions.
  const naiveCompare = fc.oneof(
    fc.record({ key: keys, target: fc.constant('version' as const), op: compareOp, value: fc.constant(0n) }),
    fc.record({ key: keys, target: fc.constant('value' as const), op: compareOp, value: values }),
  );
  const naiveOp: fc.Arbitrary<RequestOp> = fc.oneof(
    fc.record({ type: fc.constant('range' as const), key: keys }),
    fc.record({ type: fc.constant('range' as const), key: prefixes, prefix: fc.constant(true) }),
    fc.record({ type: fc.constant('put' as const), key: keys, value: values }),
    fc.record({ type: fc.constant('delete' as const), key: keys }),
    fc.record({ type: fc.constant('delete' as const), key: prefixes, prefix: fc.constant(true) }),
  );
  const naiveTxn = fc
    .record({ compare: fc.array(naiveCompare, { maxLength: 2 }), success: fc.array(naiveOp, { maxLength: 3 }), failure: fc.array(naiveOp, { maxLength: 3 }) })
    .filter((request) => validateTxn(request) === undefined);

  it('has the same latest view, range answers and revision after every txn', () => {
    fc.assert(
      fc.property(fc.array(naiveTxn, { maxLength: 40 }), (txns) => {
        const state = createEtcdState();
        const model: Model = { data: new Map(), rev: 1 };
        for (const request of txns) {
          const applied = applyRequest(state, { kind: 'txn', txn: request }, 0);
          if (!applied.ok || applied.value.body.kind !== 'txn') throw new Error('txn failed');
          const ranges = applied.value.body.responses.flatMap((response) => (response.type === 'range' ? [response.kvs.map((kv) => [kv.key, kv.value])] : []));
          expect(ranges).toEqual(modelTxn(model, request));
          expect(applied.value.revision).toBe(BigInt(model.rev));
          const all = state.store.range({ key: '', prefix: true });
          expect(all.ok && all.value.kvs.map((kv) => [kv.key, kv.value])).toEqual([...model.data].sort(([a], [b]) => compareKeys(a, b)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
