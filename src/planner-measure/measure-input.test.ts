// What --measure refuses before it starts a process: exit 2 naming the flag, the rule and the fix.
import { describe, expect, it } from 'vitest';
import type { Topology } from '../../core/planner/topology.js';
import { loadTopology } from '../commands/quorum.js';
import { runCli } from '../testing/run-cli.js';
import { proxyDelays } from './quorum-report.js';
import { measureProblem, proxyDelayMs } from './real-topology.js';

describe('quorum --measure input', () => {
  it('refuses a client count out of range, and --clients without --measure', async () => {
    const tooMany = await runCli('quorum', '--topology', 'regional-3', '--measure', '--clients', '65');
    expect(tooMany.code).toBe(2);
    expect(tooMany.err.join('\n')).toMatch(/--clients "65" must be a whole number from 1 to 64/);
    const alone = await runCli('quorum', '--topology', 'regional-3', '--clients', '2');
    expect(alone.code).toBe(2);
    expect(alone.err.join('\n')).toMatch(/--clients is for --measure only/);
  });

  it('refuses a --warmup that is not a duration or longer than 2m, and --warmup without --measure', async () => {
    const bad = await runCli('quorum', '--topology', 'regional-3', '--measure', '--warmup', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.err.join('\n')).toMatch(/--warmup "soon" is not a duration; write it like 500ms, 30s/);
    const long = await runCli('quorum', '--topology', 'regional-3', '--measure', '--warmup', '3m');
    expect(long.code).toBe(2);
    expect(long.err.join('\n')).toMatch(/--warmup "3m" is longer than 2m, a serve is warm well within it/);
    const alone = await runCli('quorum', '--topology', 'regional-3', '--warmup', '5s');
    expect(alone.code).toBe(2);
    expect(alone.err.join('\n')).toMatch(/--warmup is for --measure only/);
  });

  it('names what real processes cannot build: an unreachable hall, a member count etcd\'s kit does not start', async () => {
    const stretched = await loadTopology('stretched-3-region');
    expect(measureProblem(stretched)).toBeUndefined();
    const cut: Topology = { ...stretched, rttMs: stretched.rttMs.map((row, i) => row.map((rtt, j) => ((i === 0 && j === 2) || (i === 2 && j === 0) ? null : rtt))) };
    expect(measureProblem(cut)).toMatch(/use-a and euw-a are unreachable/);
    const four: Topology = { ...stretched, members: [...stretched.members, { name: 'etcd-x', hall: 'use-a' }] };
    expect(measureProblem(four)).toMatch(/has 4 members; a measurement starts 3 or 5/);
  });

  it('slows each link by half its round trip, in whole ms, leaving sub-millisecond links to loopback', async () => {
    expect([proxyDelayMs(0.5), proxyDelayMs(30), proxyDelayMs(91)]).toEqual([0, 15, 46]);
    expect(proxyDelays(await loadTopology('stretched-3-region'))).toEqual([
      'etcd-use->etcd-usw 15 ms', 'etcd-use->etcd-euw 35 ms', 'etcd-usw->etcd-use 15 ms', 'etcd-usw->etcd-euw 45 ms', 'etcd-euw->etcd-use 35 ms', 'etcd-euw->etcd-usw 45 ms',
      'arbiter->etcd-usw 15 ms', 'arbiter->etcd-euw 35 ms',
    ]);
  });
});

describe('ttl --measure input', () => {
  it('refuses too many holders and a bad pause count, naming the flag', async () => {
    const holders = await runCli('ttl', 'examples/classes/ledger-writes.yaml', '--sessions', '17', '--measure');
    expect(holders.code).toBe(2);
    expect(holders.err.join('\n')).toMatch(/--sessions 17 with --measure must be at most 16/);
    const pauses = await runCli('ttl', 'examples/classes/ledger-writes.yaml', '--sessions', '2', '--measure', '--measure-pauses', '0');
    expect(pauses.code).toBe(2);
    expect(pauses.err.join('\n')).toMatch(/--measure-pauses "0" must be a whole number from 1 to 2000/);
  });
});
