// Snapshots, raft log compaction and WAL purge on the simulated members (member-snapshots.ts; issue 16).
import { describe, expect, it } from 'vitest';
import type { TxnRequest } from '../../core/ports/lock-log.js';
import { stateDigest } from '../etcd/apply.js';
import type { SimClusterOptions } from './cluster.js';
import { clusterWorld, settledLeader, type ClusterWorld } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const put = (key: string, value: string): TxnRequest => ({ compare: [], success: [{ type: 'put', key, value }], failure: [] });
const snapshotting: SimClusterOptions = { timing: { snapshotCount: 40, snapshotCatchUpEntries: 10 } };

async function writes(world: ClusterWorld, count: number, client = 'writer'): Promise<void> {
  const { log } = world.client(client, { endpoints: world.cluster.members.filter((m) => m.running) });
  for (let i = 0; i < count; i += 1) await world.driver.wait(log.txn(put(`/k/${i % 7}`, `${client}-${i}`)));
}

function digests(world: ClusterWorld): string[] {
  return world.cluster.members.map((m) => stateDigest(m.state!));
}

describe('member snapshots', () => {
  it('keeps the raft log and the WAL short, and every member converges', async () => {
    const world = clusterWorld(yieldToHost, 'snapshots', snapshotting);
    await settledLeader(world);
    await writes(world, 300);
    await world.driver.runFor(1_000);
    for (const member of world.cluster.members) {
      const status = member.raftStatus()!;
      const first = member.raft()!.firstIndex();
      // At most snapshotCount + catch-up entries in memory, and the WAL a snapshot record and what follows.
      expect(first).toBeGreaterThan(200);
      expect(status.lastIndex - first).toBeLessThanOrEqual(40 + 10 + 5);
      expect(member.disk.allEntries.length).toBeLessThan(120);
      expect(member.disk.allEntries[0]?.snapshot?.index).toBeGreaterThan(250);
    }
    expect(new Set(digests(world)).size).toBe(1);
    expect(world.cluster.violations).toEqual([]);
  });

  it('restarts a member from its snapshot and the WAL after it, after a crash or a power loss, to the same state', async () => {
    const world = clusterWorld(yieldToHost, 'snapshot-restart', snapshotting);
    const leader = await settledLeader(world);
    await writes(world, 150);
    const follower = world.cluster.members.find((m) => m.name !== leader)!;
    world.cluster.crash(follower.name, { powerLoss: true });
    await writes(world, 5, 'while-down');
    world.cluster.restart(follower.name);
    await writes(world, 100, 'after');
    await world.driver.runFor(2_000);
    expect(follower.snapshots.latest!.start.index).toBeGreaterThan(200);
    world.cluster.crash(leader);
    world.cluster.restart(leader);
    await world.driver.runFor(3_000);
    await writes(world, 60, 'last');
    await world.driver.runFor(2_000);
    expect(new Set(digests(world)).size).toBe(1);
    expect(world.cluster.violations).toEqual([]);
  });

  it('compacts nothing without snapshotCount (the default): the negative control', async () => {
    const world = clusterWorld(yieldToHost, 'no-snapshots');
    await settledLeader(world);
    await writes(world, 120);
    for (const member of world.cluster.members) {
      expect(member.snapshots.latest).toBeUndefined();
      expect(member.raft()!.entries(1, 3).length).toBe(3);
      expect(member.disk.allEntries.some((record) => record.snapshot !== undefined)).toBe(false);
    }
  });

  it('fails loudly, naming the setting, when a follower lags behind what the log keeps (no MsgSnap)', async () => {
    const world = clusterWorld(yieldToHost, 'snapshot-lag', snapshotting);
    const leader = await settledLeader(world);
    const follower = world.cluster.members.find((m) => m.name !== leader)!;
    world.cluster.crash(follower.name);
    await writes(world, 120);
    world.cluster.restart(follower.name);
    const outcome = await world.driver.runFor(3_000).then(() => 'ran', (error: Error) => error.message);
    expect(outcome).toMatch(/MsgSnap.*snapshotCatchUpEntries/);
  });
});
