// FailOpen alone (ADR-04), on the simulator's kernel as its clock, with a spool and store in memory and
// a quorum the test switches: grants from memory during the outage, their ends, and the recovery.
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { CancelSource } from '../cancel.js';
import { MemoryUnprotectedStore } from '../audit/memory-unprotected-store.js';
import { LockError, isLockError } from '../lock-error.js';
import { parseLockKey } from '../lock-key.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { Session } from '../ports/arbiter-api.js';
import type { Spool, UnprotectedRecord } from '../ports/spool.js';
import type { LockLog } from '../ports/lock-log.js';
import { type LeaseId, clusterId, leaseId, memberId, revision } from '../units.js';
import { LogGateway } from './log-gateway.js';
import { SealGuard } from './seal-guard.js';
import { FailOpen, QUORUM_LOSS_CONFIRM_MS, QUORUM_LOSS_DETECT_MS, UNPROTECTED_TOKEN, opensOnQuorumLoss } from './fail-open.js';
import type { ArbiterClass } from './policy.js';

const POLL_MS = 1_000;
/** etcd's ReqTimeout (5 s + 2 election timeouts): when a write with no majority is answered `request timed out`. */
const ETCD_REQ_TIMEOUT_MS = 7_000;
const OPEN: ArbiterClass = { namespace: 'cache', name: 'warm', enforcement: 'advisory', ttlSeconds: 10, fairness: 'memory', tier: 'entity', onQuorumLoss: 'open' };
const CLOSED: ArbiterClass = { ...OPEN, name: 'ledger', enforcement: 'fenced', onQuorumLoss: 'closed' };
const ALICE = 'spiffe://t/alice';
const BOB = 'spiffe://t/bob';
const noMajority = (): LockError => new LockError('unavailable', 'no leader', { cause: new LockLogError('timeout', 'no leader', { outcome: 'indeterminate' }) });

/** A spool in memory; `failNext` makes the next append fail as a full disk would. */
class ArraySpool implements Spool {
  records: UnprotectedRecord[] = [];
  failNext = false;
  append(record: UnprotectedRecord): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('disk full'));
    }
    this.records.push(record);
    return Promise.resolve();
  }
  read(): Promise<readonly UnprotectedRecord[]> {
    return Promise.resolve([...this.records]);
  }
  truncate(throughId: string): Promise<void> {
    this.records = this.records.slice(this.records.findIndex((r) => r.id === throughId) + 1);
    return Promise.resolve();
  }
}

const header = { clusterId: clusterId(1n), memberId: memberId(1n), revision: revision(1n), raftTerm: 1n };

/** A log that answers a read while `quorum.up`, and times out otherwise; nothing else is called here. */
function quorumLog(quorum: { up: boolean; sealed?: boolean }): LockLog {
  const unused = (): never => {
    throw new Error('FailOpen only reads');
  };
  const txn = () => (quorum.sealed === true ? Promise.reject(new LockError('sealed', 'cluster ID 2 is not 1, the one the epoch was minted for')) : quorum.up ? Promise.resolve({ header, succeeded: true, responses: [] }) : Promise.reject(new LockLogError('timeout', 'no leader', { outcome: 'indeterminate' })));
  return { txn, range: unused, leaseGrant: unused, leaseKeepAlive: unused, leaseRevoke: unused, leaseTimeToLive: unused, compact: unused, status: unused, close: unused, watch: unused };
}

function setUp(spool = new ArraySpool(), incarnation = '1') {
  const kernel = new Kernel({ seed: 'fail-open', yieldToHost: () => new Promise((done) => setImmediate(done)) });
  const store = new MemoryUnprotectedStore();
  const quorum: { up: boolean; sealed?: boolean } = { up: false };
  const shutdown = new CancelSource();
  const failOpen = new FailOpen(
    { spool, store, arbiterId: 'arbiter-1', incarnation, wallClock: { nowMs: () => 1_000_000 + kernel.now() } },
    {
      clock: kernel,
      shutdown: shutdown.signal,
      pollIntervalMs: POLL_MS,
      gateway: new LogGateway(quorumLog(quorum), new SealGuard()),
      etcdSession: () => Promise.reject(noMajority()),
      opens: opensOnQuorumLoss,
    },
  );
  const acquire = (identity: string, sessionId: LeaseId, key: string, waitMs = 0, lockClass = OPEN) => failOpen.acquire(identity, parseLockKey(key), lockClass, sessionId, waitMs);
  return { kernel, spool, store, quorum, shutdown, failOpen, acquire };
}

const codeOf = (promise: Promise<unknown>): Promise<string> => promise.then(() => 'ok', (error: unknown) => (isLockError(error) ? error.code : Promise.reject(error)));

describe('FailOpen (ADR-04)', () => {
  it('enters the outage once majority reads have failed for QUORUM_LOSS_CONFIRM_MS after a failed call, not during an election', async () => {
    const { kernel, failOpen, quorum, shutdown } = setUp();
    failOpen.suspect(new LockLogError('timeout', 'no leader', { outcome: 'indeterminate' }));
    await kernel.runUntil(2_000); // an election's length: still only suspected
    expect(failOpen.inOutage).toBe(false);
    quorum.up = true; // a leader: the suspicion ends
    await kernel.runUntil(3_000);
    quorum.up = false;
    await kernel.runUntil(QUORUM_LOSS_CONFIRM_MS + 2_000);
    expect(failOpen.inOutage).toBe(false); // nothing failed since, so nothing was suspected
    failOpen.suspect(new LockLogError('not-leader', 'no leader'));
    await kernel.runUntil(kernel.now() + QUORUM_LOSS_CONFIRM_MS + 600);
    expect(failOpen.inOutage).toBe(true);
    shutdown.cancel();
  });

  it('does not fail open on a log that answers sealed (ADR-03: a restored log serves nothing); the control: the same reads timing out do', async () => {
    for (const sealed of [true, false]) {
      const { kernel, failOpen, quorum, shutdown } = setUp();
      quorum.sealed = sealed;
      failOpen.suspect(new LockLogError('timeout', 'no leader', { outcome: 'indeterminate' }));
      await kernel.runUntil(QUORUM_LOSS_CONFIRM_MS + 2_000);
      expect(failOpen.inOutage).toBe(!sealed);
      shutdown.cancel();
    }
  });

  it('enters the outage at once when an acquire spent its budget on the errors of a log with no majority, and only then', () => {
    const { failOpen, shutdown } = setUp();
    expect(failOpen.quorumLost(new LockError('contended', 'held'))).toBe(false);
    expect(failOpen.quorumLost(new LockError('unavailable', 'shutting down'))).toBe(false); // no log error behind it
    expect(failOpen.inOutage).toBe(false);
    expect(failOpen.quorumLost(noMajority())).toBe(true);
    expect(failOpen.inOutage).toBe(true);
    expect([failOpen.servesFromMemory(leaseId(5n), OPEN), failOpen.servesFromMemory(leaseId(5n), CLOSED)]).toEqual([true, false]);
    shutdown.cancel();
  });

  it('answers the first openSession of an outage from memory once the loss is confirmed, before its lease grant times out (issue 33)', async () => {
    const { kernel, failOpen, shutdown } = setUp();
    // etcd's lease grant with no majority: answered only by etcd's ReqTimeout (7 s), as "request timed out".
    const leaseGrant = (): Promise<Session> => kernel.sleep(ETCD_REQ_TIMEOUT_MS).then(() => Promise.reject(noMajority()));
    const opened = failOpen.openSessionUnlessOutage(ALICE, '', 10, leaseGrant).then((session) => ({ session, atMs: kernel.now() }));
    await kernel.runUntil(ETCD_REQ_TIMEOUT_MS + 1_000);
    const { session, atMs } = await opened;
    expect(session.sessionId < 0n).toBe(true); // a memory session
    expect(atMs).toBeGreaterThanOrEqual(QUORUM_LOSS_CONFIRM_MS); // confirmed first: an election alone opens nothing
    expect(atMs).toBeLessThanOrEqual(QUORUM_LOSS_DETECT_MS);
    expect(QUORUM_LOSS_DETECT_MS).toBeLessThan(ETCD_REQ_TIMEOUT_MS);
    // The first acquire on it is granted from memory, at once.
    expect((await failOpen.acquire(ALICE, parseLockKey('cache/k1'), OPEN, session.sessionId, 0)).unprotected).toBe(true);
    shutdown.cancel();
  });

  it('the control: an openSession slowed by an election is answered by etcd, and nothing opens', async () => {
    const { kernel, failOpen, quorum, shutdown } = setUp();
    kernel.scheduleAfter(2_000, () => void (quorum.up = true)); // a leader after 2 s
    const fromEtcd: Session = { sessionId: leaseId(7n), identity: ALICE, instance: '', ttlSeconds: 10 };
    const opened = failOpen.openSessionUnlessOutage(ALICE, '', 10, () => kernel.sleep(3_000).then(() => fromEtcd));
    await kernel.runUntil(ETCD_REQ_TIMEOUT_MS + 1_000);
    expect(await opened).toBe(fromEtcd);
    expect(failOpen.inOutage).toBe(false);
    shutdown.cancel();
  });

  it('grants an open class from memory with token 0, unprotected, exclusive and FIFO, spooling each grant and end before answering', async () => {
    const { kernel, spool, failOpen, acquire, shutdown } = setUp();
    failOpen.quorumLost(noMajority());
    const alice = failOpen.openSession(ALICE, '', 10).sessionId;
    const bob = failOpen.openSession(BOB, 'pod-2', 10).sessionId;
    expect(alice < 0n && bob < 0n && alice !== bob).toBe(true);
    const grant = await acquire(ALICE, alice, 'cache/k1');
    expect(grant).toMatchObject({ token: UNPROTECTED_TOKEN, unprotected: true, reentered: false, key: 'cache/k1', sessionId: alice });
    expect(spool.records.map((r) => [r.kind, r.identity, r.key])).toEqual([['grant', ALICE, 'cache/k1']]);
    expect((await acquire(ALICE, alice, 'cache/k1')).reentered).toBe(true);
    expect(await codeOf(acquire(BOB, bob, 'cache/k1'))).toBe('contended');
    const bobWaits = acquire(BOB, bob, 'cache/k1', 5_000);
    await kernel.runUntil(100);
    expect(await failOpen.release(ALICE, parseLockKey('cache/k1'), alice)).toEqual({ released: true });
    const bobs = await bobWaits;
    expect([bobs.identity, bobs.unprotected]).toEqual([BOB, true]);
    expect(spool.records.map((r) => [r.kind, r.identity, r.endReason ?? '', r.instance])).toEqual([
      ['grant', ALICE, '', ''],
      ['end', ALICE, 'release', ''],
      ['grant', BOB, '', 'pod-2'],
    ]);
    expect(spool.records[1]?.grantId).toBe(spool.records[0]?.id);
    shutdown.cancel();
  });

  it('refuses a correctness class on a memory session: it stays closed', async () => {
    const { failOpen, spool, acquire, shutdown } = setUp();
    failOpen.quorumLost(noMajority());
    const alice = failOpen.openSession(ALICE, '', 10).sessionId;
    expect(await codeOf(acquire(ALICE, alice, 'cache/k1', 0, CLOSED))).toBe('unavailable');
    expect(spool.records).toEqual([]);
    shutdown.cancel();
  });

  it('answers nobody for a grant the spool could not record, and frees the key', async () => {
    const { failOpen, spool, acquire, shutdown } = setUp();
    failOpen.quorumLost(noMajority());
    const alice = failOpen.openSession(ALICE, '', 10).sessionId;
    spool.failNext = true;
    await expect(acquire(ALICE, alice, 'cache/k1')).rejects.toThrow('disk full');
    expect(failOpen.holds).toEqual([]);
    expect((await acquire(ALICE, alice, 'cache/k1')).unprotected).toBe(true);
    shutdown.cancel();
  });

  it('ends the holds of a session that stops renewing (expiry), and keeps one that renews', async () => {
    const { kernel, spool, failOpen, acquire, shutdown } = setUp();
    failOpen.quorumLost(noMajority());
    const alice = failOpen.openSession(ALICE, '', 10).sessionId;
    const bob = failOpen.openSession(BOB, '', 10).sessionId;
    await acquire(ALICE, alice, 'cache/k1');
    await acquire(BOB, bob, 'cache/k2');
    for (let t = 3_000; t <= 12_000; t += 3_000) {
      await kernel.runUntil(t);
      failOpen.keepAlive(BOB, bob);
    }
    expect(spool.records.filter((r) => r.kind === 'end').map((r) => [r.identity, r.endReason])).toEqual([[ALICE, 'expiry']]);
    expect(() => failOpen.keepAlive(ALICE, alice)).toThrow(/session-expired/);
    expect(() => failOpen.keepAlive(ALICE, bob)).toThrow(/session-mismatch/);
    shutdown.cancel();
  });

  it('at recovery ends every hold as a fence, refuses the waiters, forgets the sessions and ships the spool once', async () => {
    const { kernel, spool, store, quorum, failOpen, acquire, shutdown } = setUp();
    failOpen.quorumLost(noMajority());
    const alice = failOpen.openSession(ALICE, '', 10).sessionId;
    const bob = failOpen.openSession(BOB, '', 10).sessionId;
    await acquire(ALICE, alice, 'cache/k1');
    const waiter = codeOf(acquire(BOB, bob, 'cache/k1', 60_000));
    quorum.up = true;
    await kernel.runUntil(POLL_MS + 1);
    expect(failOpen.inOutage).toBe(false);
    expect(await waiter).toBe('unavailable');
    expect(() => failOpen.keepAlive(ALICE, alice)).toThrow(/session-expired/); // told as a fence
    expect(store.records.map((r) => [r.kind, r.endReason ?? ''])).toEqual([['grant', ''], ['end', 'recovery']]);
    expect(spool.records).toEqual([]);
    expect(store.shipments).toBe(1);
    shutdown.cancel();
  });

  it('a restarted arbiter ships what an earlier run spooled, ending its lost grants, and nothing twice after a crash mid-ship', async () => {
    const first = setUp();
    first.failOpen.quorumLost(noMajority());
    const alice = first.failOpen.openSession(ALICE, '', 10).sessionId;
    await first.acquire(ALICE, alice, 'cache/k1');
    first.shutdown.cancel(); // the arbiter crashes, its memory gone; the spool survives
    const restarted = setUp(first.spool, '2');
    // The earlier run had shipped the grant and crashed before truncating: the store has it already.
    await restarted.store.shipUnprotected(first.spool.records);
    restarted.quorum.up = true;
    await restarted.kernel.runUntil(POLL_MS + 1);
    expect(restarted.store.records.map((r) => [r.kind, r.endReason ?? '', r.id])).toEqual([['grant', '', 'arbiter-1/1/1'], ['end', 'recovery', 'arbiter-1/2/1']]);
    expect(restarted.store.offered).toBe(3); // the grant offered twice, stored once
    expect(restarted.spool.records).toEqual([]);
    restarted.shutdown.cancel();
  });
});
