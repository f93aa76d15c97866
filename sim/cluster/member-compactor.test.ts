// etcd's periodic auto-compaction on the simulated members (member-compactor.ts; issue 16).
import { describe, expect, it } from 'vitest';
import type { TxnRequest } from '../../core/ports/lock-log.js';
import { revision } from '../../core/units.js';
import { compactIntervalMs, retentionSamples, retryIntervalMs } from './member-compactor.js';
import type { SimClusterOptions } from './cluster.js';
import { clusterWorld, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const put = (key: string, value: string): TxnRequest => ({ compare: [], success: [{ type: 'put', key, value }], failure: [] });
const RETENTION_MS = 10_000;
const compacting: SimClusterOptions = { timing: { autoCompaction: { mode: 'periodic', retentionMs: RETENTION_MS } } };

/** A write a second for `seconds`; the revision each second ended at. */
async function writeEverySecond(options: SimClusterOptions, seconds: number, seed: string) {
  const world = clusterWorld(yieldToHost, seed, options, true);
  await settledLeader(world);
  const { log } = world.client('writer');
  const revisionAt: number[] = [];
  for (let s = 0; s < seconds; s += 1) {
    const written = await world.driver.wait(log.txn(put(`/k/${s % 5}`, String(s))));
    revisionAt.push(Number(written.header.revision));
    await world.driver.runFor(1_000);
  }
  return { world, log, revisionAt };
}

describe('periodic auto-compaction', () => {
  it('derives etcd\'s intervals from the retention: a tenth to sample, the retention to compact, an hour at most', () => {
    expect([retryIntervalMs({ mode: 'periodic', retentionMs: 10_000 }), compactIntervalMs({ mode: 'periodic', retentionMs: 10_000 }), retentionSamples({ mode: 'periodic', retentionMs: 10_000 })]).toEqual([1_000, 10_000, 11]);
    expect([retryIntervalMs({ mode: 'periodic', retentionMs: 5 * 3_600_000 }), compactIntervalMs({ mode: 'periodic', retentionMs: 5 * 3_600_000 }), retentionSamples({ mode: 'periodic', retentionMs: 5 * 3_600_000 })]).toEqual([360_000, 3_600_000, 51]);
  });

  it('compacts every member to the revision of about one retention ago, proposed by the leader alone', async () => {
    const { world, log, revisionAt } = await writeEverySecond(compacting, 60, 'auto-compaction');
    const compactions = world.kernel.trace.records().filter((r) => r.kind === 'etcd.compact.auto');
    // First after one retention, then one each retention: about 5 in 60 s, all from the one leader.
    expect(compactions.length).toBeGreaterThanOrEqual(4);
    expect(compactions.length).toBeLessThanOrEqual(6);
    expect(new Set(compactions.map((r) => r.process))).toEqual(new Set([world.cluster.leader()!.name]));
    const latest = revisionAt.at(-1)!;
    for (const member of world.cluster.members) {
      const store = member.state!.store;
      // The last compaction went to the revision of 10-20 s ago: at most ~20 revisions are kept.
      expect(store.compactRev).toBeGreaterThanOrEqual(latest - 2 * (RETENTION_MS / 1_000) - 2);
      expect(store.compactRev).toBeLessThanOrEqual(latest - RETENTION_MS / 1_000 + 2);
      expect(store.memoryStats().retainedRevisions).toBeLessThanOrEqual(latest - store.compactRev + 1);
    }
    // A read below the compaction is refused as etcd refuses it.
    const old = await world.driver.wait(log.range({ key: '/k/0', revision: revision(BigInt(revisionAt[0]!)) }).then(() => 'read', (e: Error) => e.message));
    expect(old).toMatch(/compacted/);
    expect(world.cluster.violations).toEqual([]);
  });

  it('keeps every revision without it (etcd\'s default): the negative control', async () => {
    const { world, revisionAt } = await writeEverySecond({}, 30, 'no-auto-compaction');
    for (const member of world.cluster.members) {
      expect(member.state!.store.compactRev).toBe(-1);
      expect(member.state!.store.memoryStats().retainedRevisions).toBeGreaterThanOrEqual(revisionAt.at(-1)! - 1);
    }
    expect(world.kernel.trace.records().some((r) => r.kind === 'etcd.compact.auto')).toBe(false);
  });

  it('goes on under a new leader after the leader crashes', async () => {
    const { world } = await writeEverySecond(compacting, 15, 'auto-compaction-failover');
    const first = world.cluster.leader()!.name;
    world.cluster.crash(first);
    const { log } = world.client('writer-2', { endpoints: world.cluster.members.filter((m) => m.name !== first) });
    for (let s = 0; s < 40; s += 1) {
      await world.driver.wait(log.txn(put('/after', String(s))).catch(() => undefined));
      await world.driver.runFor(1_000);
    }
    const second = world.cluster.leader()!.name;
    expect(second).not.toBe(first);
    expect(world.kernel.trace.records().some((r) => r.kind === 'etcd.compact.auto' && r.process === second)).toBe(true);
  });
});
