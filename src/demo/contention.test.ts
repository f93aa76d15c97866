import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { initEtcdLog } from '../etcd/index.js';
import { analyseJournal, runContention } from './contention.js';

describe('journal analysis', () => {
  it('accepts one command after another with rising tokens', () => {
    expect(analyseJournal(['start 5', 'end 5', 'start 9', 'end 9'])).toEqual({ tokens: ['5', '9'], overlaps: [], tokensStrictlyIncrease: true });
  });

  it('finds an overlap and a falling token', () => {
    const report = analyseJournal(['start 9', 'start 5', 'end 9', 'end 5']);
    expect(report.overlaps).toEqual(['line 2: 5 started while 9 was running']);
    expect(report.tokensStrictlyIncrease).toBe(false);
  });
});

describe('four lockstep lock processes on a real 3-member etcd', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 3 });
    await initEtcdLog(cluster.endpoints); // lockstep init: `lock` refuses a log without an epoch record
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('never run their commands at once, and see strictly increasing tokens', async () => {
    const report = await runContention({
      endpoints: cluster.endpoints,
      classFile: 'examples/classes/ledger-writes.yaml',
      key: 'payments/invoice-contended',
      processes: 4,
      holdMs: 300,
      waitSeconds: 60,
    });
    expect(report.runs.map((run) => run.exitCode), report.runs.map((run) => run.stderr).join('\n')).toEqual([0, 0, 0, 0]);
    expect(report.tokens).toHaveLength(4);
    expect(new Set(report.tokens).size).toBe(4);
    expect(report.overlaps).toEqual([]);
    expect(report.tokensStrictlyIncrease).toBe(true);
  });
});
