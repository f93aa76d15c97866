// WaiterLease alone (ADR-14, issue 11 L5, issue 35 seed 502794), on the simulator's kernel as its clock,
// over a log that keeps the waiting lease's keys in a map: a place none of this arbiter's waiters holds
// (a join's late put copy after its leave, a leave that failed) is deleted at the next renewal, and a
// place a waiter holds is never touched.
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { CancelSource } from '../cancel.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { LockLog, TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { clusterId, leaseId, memberId, revision } from '../units.js';
import { LogGateway } from './log-gateway.js';
import { SealGuard } from './seal-guard.js';
import { WaiterLease } from './waiter-lease.js';

const header = { clusterId: clusterId(1n), memberId: memberId(1n), revision: revision(1n), raftTerm: 1n };
const LEASE = leaseId(694n);
const ORPHAN = '/q/payments/ledger-1//677';
const HELD = '/q/payments/ledger-1//786';
/** Past two renewal periods (5 s / 3 each). */
const AFTER_TWO_RENEWALS_MS = 3_500;

/** The waiting lease's keys in a map; a txn is a waiter's compare-on-lease delete (a leave) or a put of a place. */
function leaseLog(options: { failLeaves?: boolean }): { log: LockLog; onLease: Set<string>; deleted: string[] } {
  const onLease = new Set<string>();
  const deleted: string[] = [];
  const unused = (): never => {
    throw new Error('not called by a WaiterLease');
  };
  const txn = async (request: TxnRequest): Promise<TxnResponse> => {
    const op = request.success[0];
    if (op?.type === 'delete') {
      if (options.failLeaves === true) throw new LockLogError('unavailable', 'the leave did not reach the log (test)');
      deleted.push(op.key);
      onLease.delete(op.key);
    }
    if (op?.type === 'put') onLease.add(op.key);
    return { header, succeeded: true, responses: [] };
  };
  const log: LockLog = {
    txn,
    leaseGrant: async () => ({ header, id: LEASE, ttlSeconds: 5 }),
    leaseKeepAlive: async (id) => ({ header, id, ttlSeconds: 5 }),
    leaseTimeToLive: async (id) => ({ header, id, ttlSeconds: 5, grantedTtlSeconds: 5, keys: [...onLease] }),
    range: unused, leaseRevoke: unused, watch: unused, compact: unused, status: unused, close: unused,
  };
  return { log, onLease, deleted };
}

function setUp(options: { failLeaves?: boolean } = {}) {
  const kernel = new Kernel({ seed: 'waiter-lease', yieldToHost: () => new Promise((done) => setImmediate(done)) });
  const { log, onLease, deleted } = leaseLog(options);
  const places = new WaiterLease({ gateway: new LogGateway(log, new SealGuard()), clock: kernel, shutdown: new CancelSource() });
  return { kernel, places, onLease, deleted, log };
}

describe('WaiterLease sweep', () => {
  it('deletes a place no waiter holds (a join copy that committed after its leave), and keeps the held one', async () => {
    const { kernel, places, onLease, deleted } = setUp();
    expect(await places.id()).toBe(LEASE);
    const out = places.enter(HELD); // a waiter in line, keeping the lease renewed
    onLease.add(HELD);
    onLease.add(ORPHAN); // the late copy: its waiter left before it committed
    await kernel.runUntil(AFTER_TWO_RENEWALS_MS);
    expect(deleted).toEqual([ORPHAN]);
    expect([...onLease]).toEqual([HELD]);
    out();
  });

  it('keeps a place two waiters share until both are out (two tasks of one session)', async () => {
    const { kernel, places, onLease, deleted } = setUp();
    await places.id();
    const first = places.enter(HELD);
    const second = places.enter(HELD);
    const other = places.enter('/q/payments/ledger-2//9'); // keeps the lease renewed once both are out
    onLease.add(HELD);
    first();
    await kernel.runUntil(AFTER_TWO_RENEWALS_MS);
    expect(deleted).toEqual([]);
    second();
    await kernel.runUntil(2 * AFTER_TWO_RENEWALS_MS);
    expect(deleted).toEqual([HELD]);
    other();
  });

  it('tries again at the next renewal when the delete did not reach the log', async () => {
    const options = { failLeaves: true };
    const { kernel, places, onLease, deleted } = setUp(options);
    await places.id();
    const out = places.enter(HELD);
    onLease.add(ORPHAN);
    await kernel.runUntil(AFTER_TWO_RENEWALS_MS);
    expect(onLease.has(ORPHAN)).toBe(true); // every delete failed so far
    options.failLeaves = false;
    await kernel.runUntil(2 * AFTER_TWO_RENEWALS_MS);
    expect(deleted).toEqual([ORPHAN]);
    out();
  });
});
