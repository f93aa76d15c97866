import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { initEtcdLog } from '../etcd/index.js';
import { analyseJournal, runContention } from './contention.js';

describe('journal analysis', () => {
  it('accepts one command after another with rising tokens', () => {
    expect(analyseJournal(['start w1 5', 'end w1 5', 'start w2 9', 'end w2 9'])).toEqual({ order: ['w1', 'w2'], distinctTokens: 2, overlaps: [], tokensStrictlyIncrease: true });
  });

  it('finds an overlap and a falling token, naming holders and not tokens', () => {
    const report = analyseJournal(['start w1 9', 'start w2 5', 'end w1 9', 'end w2 5']);
    expect(report.overlaps).toEqual(['line 2: w2 started while w1 was running']);
    expect(report.tokensStrictlyIncrease).toBe(false);
  });

  it('does not take a missing or garbled token for a rising one', () => {
    expect(analyseJournal(['start w1 5', 'end w1 5', 'start w2 undefined', 'end w2 undefined']).tokensStrictlyIncrease).toBe(false);
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
    expect(report.order).toHaveLength(4);
    expect(new Set(report.order).size).toBe(4);
    expect(report.distinctTokens).toBe(4);
    expect(report.overlaps).toEqual([]);
    expect(report.tokensStrictlyIncrease).toBe(true);
  });
});
