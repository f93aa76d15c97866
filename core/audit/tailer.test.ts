// The tailer on the simulated lock service (production arbiter and client on simulated etcd): replay after
// a crash, gaps after a compaction, a log that went backwards, and writes only while allowed.
import { describe, expect, it } from 'vitest';
import { PrefixGrants, namespaceGrant } from '../authz/index.js';
import { CancelSource } from '../cancel.js';
import { type AuditRun, checkAuditComplete } from '../checkers/index.js';
import { ClassRegistry } from '../classes/index.js';
import { createSimLockLog } from '../../sim/cluster/lock-log.js';
import { SimProcess } from '../../sim/process/process.js';
import { FollowingLog } from '../../sim/world/following-log.js';
import { type ClientNode, World } from '../../sim/world/world.js';
import { Kernel } from '../../sim/kernel/kernel.js';
import type { LockLog } from '../ports/lock-log.js';
import { clusterId as toClusterId, memberId, revision } from '../units.js';
import type { AuditRecord } from './events.js';
import { MemoryAuditStore } from './memory-store.js';
import type { AuditBatch, AuditStore } from './store.js';
import { type TailerOptions, type TailerStop, runTailer } from './tailer.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const CLASS = { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'db://orders', ttlSeconds: 5, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;
const INTERVAL_MS = 1_000;

async function world(seed: string): Promise<World> {
  const w = new World({ seed, yieldToHost, classes: new ClassRegistry([CLASS]), authorizer: new PrefixGrants(['alice', 'bob', 'carol'].map((n) => namespaceGrant(`spiffe://sim/${n}`, 'orders'))) });
  await w.start();
  return w;
}

/** A tailer process of the test's own, so that the test crashes and restarts it when it likes. */
function tailerOn(w: World, process: SimProcess, store: AuditStore, extra: Partial<TailerOptions> = {}): { readonly stop: CancelSource; readonly done: Promise<TailerStop> } {
  const stop = new CancelSource();
  const log = createSimLockLog({ kernel: w.kernel, network: w.clusterNetwork, client: process, endpoints: w.cluster.members });
  const done = runTailer({ log, store, clock: process.clock(), wallClock: { nowMs: () => w.kernel.now() }, random: process.random('tailer'), signal: stop, checkpointIntervalMs: INTERVAL_MS, ...extra });
  return { stop, done };
}

/** Holds `key` for `holdMs`, then releases it (or, with `crash`, crashes the client's process so its lease expires). */
function hold(w: World, node: ClientNode, key: string, holdMs: number, crash = false): void {
  void node.client
    .acquire({ key, className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, waitMs: 30_000, onFence: () => {} })
    .then(async (handle) => {
      await node.process.clock().sleep(holdMs);
      if (crash) node.process.crash();
      else await handle.release();
    })
    .catch(() => undefined);
}

async function compactAtHead(w: World): Promise<bigint> {
  const operator = new SimProcess(w.kernel, { name: `operator-${w.kernel.now()}` });
  const log = createSimLockLog({ kernel: w.kernel, network: w.clusterNetwork, client: operator, endpoints: w.cluster.members });
  let compacted = 0n;
  void log.range({ key: '/sys/epoch' }).then(async ({ header }) => {
    await log.compact(header.revision);
    compacted = header.revision;
  });
  await w.kernel.runUntilCondition(() => compacted > 0n, { untilMs: w.kernel.now() + 5_000 });
  return compacted;
}

function auditRun(w: World, store: MemoryAuditStore): AuditRun {
  return {
    clusters: [{ name: w.log.cluster, clusterId: w.cluster.clusterId, fromRevision: 1n, compactions: w.log.compactions, current: true }],
    records: store.records,
    gaps: store.gaps,
    checkpoints: store.allCheckpoints(),
    conflicts: store.conflicts.length,
    stops: [],
    endedAtMs: w.kernel.now(),
    maxLagMs: 10_000,
  };
}

const kinds = (records: readonly AuditRecord[]): string[] => records.filter((r) => r.kind !== 'epoch').map((r) => `${r.kind} ${r.key}`);

describe('runTailer', () => {
  it('reads every grant, release and expiry, and after a crash replays from its checkpoint writing each event once', async () => {
    const w = await world('tailer-crash');
    const [alice, bob, carol] = [w.addClient('alice'), w.addClient('bob'), w.addClient('carol')];
    const store = new MemoryAuditStore();
    const process = new SimProcess(w.kernel, { name: 'tailer' });
    tailerOn(w, process, store);
    hold(w, alice, 'orders/o-1', 300);
    hold(w, bob, 'orders/o-2', 200, true); // bob's process dies holding o-2: its lease expires
    await w.runUntil(w.kernel.now() + 2_500);
    process.crash(); // with events read since its last flush
    hold(w, carol, 'orders/o-1', 300);
    await w.runUntil(w.kernel.now() + 1_000);
    process.restart();
    tailerOn(w, process, store);
    await w.runUntil(w.kernel.now() + 12_000);
    expect(kinds(store.records).sort()).toEqual(['expiry orders/o-2', 'grant orders/o-1', 'grant orders/o-1', 'grant orders/o-2', 'release orders/o-1', 'release orders/o-1']);
    expect(store.conflicts).toEqual([]);
    const checked = checkAuditComplete(w.log.grants, auditRun(w, store));
    expect(checked).toMatchObject({ ok: true });
    expect(checked.detail).toMatch(/^ok: 6 committed lock events/);
    expect(store.allCheckpoints()[0]?.revision).toBe(revision(BigInt(w.log.revision)));
    // A replay of the whole log into a store that already has it (no checkpoint: from revision 1) offers
    // every event again, reads each the same way from a fresh start, and writes none twice.
    const replayed = new MemoryAuditStore();
    await replayed.write({ records: store.records, gaps: [], checkpoint: { clusterId: toClusterId(w.cluster.clusterId), revision: revision(0n), epoch: 0, updatedAtMs: 0 } });
    tailerOn(w, new SimProcess(w.kernel, { name: 'replayer' }), replayed);
    await w.runUntil(w.kernel.now() + 3_000);
    expect(replayed.records).toHaveLength(store.records.length);
    expect(replayed.conflicts).toEqual([]);
  });

  it('records a compaction past its checkpoint as a gap with both revisions, and reads on after it', async () => {
    const w = await world('tailer-gap');
    const [alice, bob] = [w.addClient('alice'), w.addClient('bob')];
    const store = new MemoryAuditStore();
    const process = new SimProcess(w.kernel, { name: 'tailer' });
    tailerOn(w, process, store);
    hold(w, alice, 'orders/o-1', 100);
    await w.runUntil(w.kernel.now() + 1_500);
    process.crash();
    const checkpoint = store.allCheckpoints()[0]?.revision ?? 0n;
    hold(w, bob, 'orders/o-2', 100);
    hold(w, alice, 'orders/o-3', 100);
    await w.runUntil(w.kernel.now() + 1_000);
    const compacted = await compactAtHead(w);
    hold(w, bob, 'orders/o-4', 100);
    await w.runUntil(w.kernel.now() + 1_000);
    process.restart();
    tailerOn(w, process, store);
    await w.runUntil(w.kernel.now() + 5_000);
    expect(store.gaps.map((g) => [g.fromRevision, g.toRevision])).toEqual([[checkpoint + 1n, compacted]]);
    expect(kinds(store.records)).toEqual(expect.arrayContaining(['grant orders/o-1', 'release orders/o-1', 'grant orders/o-4', 'release orders/o-4']));
    expect(kinds(store.records).some((k) => k.endsWith('o-2') || k.endsWith('o-3'))).toBe(false); // compacted away before it read them
    expect(checkAuditComplete(w.log.grants, auditRun(w, store))).toMatchObject({ ok: true });
    // Negative control: the same store without its gap is an audit that lost events in silence.
    const silent = checkAuditComplete(w.log.grants, { ...auditRun(w, store), gaps: [] });
    expect(silent.ok).toBe(false);
    expect(new Set(silent.violations.map((v) => v.kind))).toEqual(new Set(['audit-missing']));
  });

  it('starts a fresh store at --from-revision, with a gap when etcd no longer has it', async () => {
    const w = await world('tailer-from');
    const alice = w.addClient('alice');
    hold(w, alice, 'orders/o-1', 100);
    await w.runUntil(w.kernel.now() + 1_000);
    const compacted = await compactAtHead(w);
    const store = new MemoryAuditStore();
    tailerOn(w, new SimProcess(w.kernel, { name: 'tailer' }), store, { fromRevision: revision(2n) });
    await w.runUntil(w.kernel.now() + 3_000);
    expect(store.gaps.map((g) => [g.fromRevision, g.toRevision])).toEqual([[2n, compacted]]);
    expect(store.allCheckpoints()[0]?.epoch).toBe(1); // the epoch as the log had it at the compaction
  });

  it('stops when the cluster answers below its checkpoint: restored or replaced under the same cluster ID', async () => {
    const w = await world('tailer-backwards');
    const store = new MemoryAuditStore();
    const id = toClusterId(w.cluster.clusterId);
    await store.write({ records: [], gaps: [], checkpoint: { clusterId: id, revision: revision(10_000n), epoch: 1, updatedAtMs: 0 } });
    const { done } = tailerOn(w, new SimProcess(w.kernel, { name: 'tailer' }), store);
    let stopped: TailerStop | undefined;
    void done.then((s) => (stopped = s));
    await w.kernel.runUntilCondition(() => stopped !== undefined, { untilMs: w.kernel.now() + 5_000 });
    expect(stopped).toMatchObject({ reason: 'went-backwards', clusterId: id, checkpoint: 10_000n });
  });

  it('stops when the log no longer holds the history it read: restored under the same cluster ID, its revisions taken again', async () => {
    const w = await world('tailer-restored');
    const [alice, bob] = [w.addClient('alice'), w.addClient('bob')];
    const store = new MemoryAuditStore();
    const process = new SimProcess(w.kernel, { name: 'tailer' });
    const log = new FollowingLog(() => w.cluster, (cluster) => createSimLockLog({ kernel: w.kernel, network: w.clusterNetwork, client: process, endpoints: cluster.members }));
    let stopped: TailerStop | undefined;
    void runTailer({ log, store, clock: process.clock(), wallClock: { nowMs: () => w.kernel.now() }, random: process.random('tailer'), signal: new CancelSource(), checkpointIntervalMs: INTERVAL_MS }).then((s) => (stopped = s));
    hold(w, alice, 'orders/o-1', 100);
    await w.runUntil(w.kernel.now() + 1_000);
    const leader = w.cluster.leader()?.name ?? 'etcd-1';
    const snapshot = w.cluster.snapshot(leader);
    for (const key of ['orders/o-2', 'orders/o-3', 'orders/o-4']) hold(w, bob, key, 50);
    await w.runUntil(w.kernel.now() + 2_000);
    const read = store.allCheckpoints()[0]?.revision ?? 0n;
    expect(read).toBeGreaterThan(snapshot.revision); // the tailer has read history the restore will undo
    // The tailer is paused through the restore, until the restored log has passed its checkpoint.
    process.pause();
    w.restoreCluster({ snapshot }); // the default token, as the cluster was made: the same cluster ID
    // The arbiters seal on the restored log (ADR-03); another writer moves it on past the checkpoint.
    const writer = new SimProcess(w.kernel, { name: 'writer' });
    const writes = new FollowingLog(() => w.cluster, (cluster) => createSimLockLog({ kernel: w.kernel, network: w.clusterNetwork, client: writer, endpoints: cluster.members }));
    let head = 0n;
    void (async () => {
      while (head <= read + 5n) {
        const answer = await writes.txn({ compare: [], success: [{ type: 'put', key: '/ops/churn', value: String(head) }], failure: [] }).catch(() => undefined);
        // A refused call fails at once (simulator model 3: a dead member's host answers), so a retry
        // without a pause would spin in zero virtual time.
        if (answer === undefined) await writer.clock().sleep(50);
        else head = answer.header.revision;
      }
    })();
    await w.kernel.runUntilCondition(() => head > read + 5n, { untilMs: w.kernel.now() + 30_000 });
    process.resume();
    await w.kernel.runUntilCondition(() => stopped !== undefined, { untilMs: w.kernel.now() + 20_000 });
    expect(stopped).toMatchObject({ reason: 'went-backwards', clusterId: toClusterId(w.cluster.clusterId), checkpoint: read });
    // The restored log may have moved past the checkpoint already: a revision floor alone would not see it.
    expect(stopped?.reason === 'went-backwards' && stopped.probe !== undefined).toBe(true);
    expect(store.records.every((r) => r.revision <= read)).toBe(true);
  });

  it('writes nothing while it may not (an election it may have lost), and catches up once it may', async () => {
    const w = await world('tailer-may-write');
    const alice = w.addClient('alice');
    const writes: AuditBatch[] = [];
    const inner = new MemoryAuditStore();
    const store: AuditStore = { write: (batch) => (writes.push(batch), inner.write(batch)), checkpoint: (id) => inner.checkpoint(id) };
    let allowed = false;
    tailerOn(w, new SimProcess(w.kernel, { name: 'tailer' }), store, { mayWrite: () => allowed });
    hold(w, alice, 'orders/o-1', 100);
    await w.runUntil(w.kernel.now() + 3_000);
    expect(writes).toEqual([]);
    allowed = true;
    await w.runUntil(w.kernel.now() + 2_000);
    expect(kinds(inner.records)).toEqual(['grant orders/o-1', 'release orders/o-1']);
  });
});

describe('runTailer when another cluster answers behind the same endpoints', () => {
  it('ends the open watch and resumes on the new cluster, though nothing ended the run (swarm seed 1656)', async () => {
    // A restore that keeps the tailer's election lease alive leaves its watch open on a stream that
    // delivers nothing; only the watchdog's read of the head sees the other cluster ID.
    const kernel = new Kernel({ seed: 'tailer-cluster-changed', yieldToHost });
    let current = toClusterId(1n);
    const watchedOn: bigint[] = [];
    // Nothing written on the first cluster (so its silent watch is not stalled); the restored one is ahead.
    const header = () => ({ clusterId: current, memberId: memberId(1n), revision: revision(current === 1n ? 0n : 9n), raftTerm: 1n });
    const unused = (): never => {
      throw new Error('not called by this test');
    };
    const log: LockLog = {
      range: async () => ({ header: header(), kvs: [], count: 0, more: false }),
      watch: async () => {
        watchedOn.push(current);
        return { header: header(), cancel: async () => {} };
      },
      txn: unused, leaseGrant: unused, leaseKeepAlive: unused, leaseRevoke: unused, leaseTimeToLive: unused, compact: unused, status: unused, close: unused,
    };
    const stop = new CancelSource();
    const done = runTailer({ log, store: new MemoryAuditStore(), clock: kernel, wallClock: { nowMs: () => kernel.now() }, random: kernel.rng.stream('tailer'), signal: stop, checkpointIntervalMs: INTERVAL_MS });
    await kernel.runUntil(3 * INTERVAL_MS);
    expect(watchedOn).toEqual([1n]);
    current = toClusterId(2n); // restored: another cluster ID answers now
    await kernel.runUntil(10 * INTERVAL_MS);
    stop.cancel();
    await kernel.runUntil(11 * INTERVAL_MS);
    expect(await done).toMatchObject({ reason: 'stopped', clusterId: 2n });
    expect(watchedOn[0]).toBe(1n);
    expect(watchedOn).toContain(2n); // before the fix: [1n], the watch on the old cluster never ended
  });
});
