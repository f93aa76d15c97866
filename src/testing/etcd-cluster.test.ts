// The cluster harness itself; clusters that start are exercised by src/etcd/etcd-lock-log.test.ts.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startEtcdCluster } from './etcd-cluster.js';

describe('startEtcdCluster', () => {
  it('fails with the member log when etcd will not start, and removes its data dir', async () => {
    const error = String(await startEtcdCluster({ members: 1, extraArgs: ['--no-such-flag'] }).catch((e: unknown) => e));
    expect(error).toMatch(/exited during startup \(exit code \d+\)/);
    expect(error).toContain('no-such-flag'); // from the tail of etcd's own log
    const dataDir = /log (\S+)\/etcd\.log/.exec(error)?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir ?? '/')).toBe(false);
  });
});
