// The LockLog conformance suite (src/testing/lock-log-conformance.ts), the same one real etcd passes,
// on a simulated 3-member cluster through SimLockLog. The suite awaits the simulated world through a
// SimDriver, so virtual time moves only while it waits on the world.
import { expect } from 'vitest';
import { describeLockLogConformance } from '../../src/testing/lock-log-conformance.js';
import { clusterWorld, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describeLockLogConformance('simulated etcd, 3 members', async () => {
  const world = clusterWorld(yieldToHost, 'conformance-1');
  await settledLeader(world);
  const { driver, cluster } = world;
  const { process, log } = world.client('conformance-client');
  const memberLogs = cluster.members.map((member) => world.client('conformance-client', { endpoints: [member] }).log);
  return {
    log: driver.lockLog(log),
    clock: driver.clock(process.clock()),
    memberLogs: memberLogs.map((memberLog) => driver.lockLog(memberLog)),
    close: async () => {
      await Promise.all([log, ...memberLogs].map((l) => driver.wait(l.close())));
      driver.stop();
      expect(cluster.violations).toEqual([]); // and Raft stayed safe while the suite ran
    },
  };
});

describeLockLogConformance('simulated etcd, 3 members, etcd 3.5 switches, a follower as endpoint', async () => {
  const world = clusterWorld(yieldToHost, 'conformance-2', { preVote: true, confirmLeadershipOnRenew: true, confirmLeadershipOnRevoke: true });
  const leader = await settledLeader(world);
  const { driver, cluster } = world;
  const follower = cluster.members.find((member) => member.name !== leader)!;
  const { process, log } = world.client('conformance-client', { endpoints: [follower, ...cluster.members.filter((m) => m !== follower)] });
  return {
    log: driver.lockLog(log),
    clock: driver.clock(process.clock()),
    close: async () => {
      await driver.wait(log.close());
      driver.stop();
      expect(cluster.violations).toEqual([]);
    },
  };
});

describeLockLogConformance('simulated etcd, 5 members, costly CPU and a lagging apply', async () => {
  const world = clusterWorld(yieldToHost, 'conformance-3', { members: 5, timing: { requestCostMs: 2, applyCostMs: 3 } });
  await settledLeader(world);
  const { driver, cluster } = world;
  const { process, log } = world.client('conformance-client');
  return {
    log: driver.lockLog(log),
    clock: driver.clock(process.clock()),
    close: async () => {
      await driver.wait(log.close());
      driver.stop();
      expect(cluster.violations).toEqual([]);
    },
  };
});
