// A member's crash as its raft peers see it (issue 32, model 3): the dead process's machine resets their
// streams, and the leader stops optimistic replication to it (etcd rafthttp ReportUnreachable, raft
// MsgUnreachable: replicate -> probe), so a restarted member is caught up from its match. A machine without
// power answers nothing: the leader learns nothing and keeps replicating into the void (the negative control).
import { describe, expect, it } from 'vitest';
import { clusterWorld, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

async function unreachableReports(seed: string, powerLoss: boolean): Promise<{ readonly follower: string; readonly peers: unknown[] }> {
  const world = clusterWorld(yieldToHost, seed, {}, true);
  const leader = await settledLeader(world);
  const follower = world.cluster.members.find((m) => m.name !== leader)!.name;
  world.cluster.crash(follower, { powerLoss });
  await world.driver.runFor(1_000);
  const peers = world.kernel.trace.records().filter((r) => r.kind === 'raft.unreachable' && r.process === leader).map((r) => r.fields['peer']);
  return { follower, peers };
}

describe('a member crash as its raft peers see it (issue 32)', () => {
  it('the leader probes the crashed follower once its connection is reset', async () => {
    const { follower, peers } = await unreachableReports('raft-reset', false);
    expect(peers).toEqual([follower]);
  });

  it('negative control: a follower that lost power answers nothing, so the leader is never told', async () => {
    const { peers } = await unreachableReports('raft-reset', true);
    expect(peers).toEqual([]);
  });
});
