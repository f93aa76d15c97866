// The cluster harness itself; clusters that start are exercised by src/etcd/etcd-lock-log.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEtcdLockLog } from '../etcd/etcd-lock-log.js';
import { startEtcdCluster } from './etcd-cluster.js';
import { PORT_TAKEN, foreignCluster, probeMember } from './etcd-health.js';

describe('startEtcdCluster', () => {
  it('fails with the member log when etcd will not start, and removes its data dir', async () => {
    const error = String(await startEtcdCluster({ members: 1, extraArgs: ['--no-such-flag'] }).catch((e: unknown) => e));
    expect(error).toMatch(/exited during startup \(exit code \d+\)/);
    expect(error).toContain('no-such-flag'); // from the tail of etcd's own log
    const dataDir = /log (\S+)\/etcd\.log/.exec(error)?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir ?? '/')).toBe(false);
  });

  it('wipes a member so that it restarts empty, with the same member and cluster ID and its log kept', async () => {
    const cluster = await startEtcdCluster({ members: 1 });
    const log = createEtcdLockLog({ endpoints: cluster.endpoints });
    try {
      await log.txn({ compare: [], success: [{ type: 'put', key: 'before-wipe', value: 'v' }], failure: [] });
      const before = (await log.range({ key: 'before-wipe' })).header;

      await cluster.wipeMember(0);
      expect(cluster.members[0]?.running).toBe(false);
      await cluster.startMember(0);

      const after = await log.range({ key: 'before-wipe' });
      expect(after.count).toBe(0);
      expect([after.header.clusterId, after.header.memberId]).toEqual([before.clusterId, before.memberId]);
      expect(after.header.revision).toBe(1n); // a fresh store: no write has happened yet
      const logText = readFileSync(cluster.members[0]?.logFile ?? '', 'utf8');
      expect(logText.split('starting an etcd server').length - 1).toBe(2); // one log, both runs
    } finally {
      await log.close();
      await cluster.stop();
    }
  });

  it("tells a member's own port from another cluster's etcd answering on it (a port clash)", async () => {
    const cluster = await startEtcdCluster({ members: 1 });
    try {
      const member = cluster.members[0]!;
      expect(await foreignCluster(member.clientUrl, [member.peerUrl])).toBeUndefined();
      // Why the health probe alone cannot tell: an etcd 3.4 peer port serves the gRPC API, healthy.
      expect(await probeMember(member.peerUrl)).toBeUndefined();
      expect(await foreignCluster(member.peerUrl, ['http://127.0.0.1:1'])).toContain(PORT_TAKEN);
    } finally {
      await cluster.stop();
    }
  });
});
