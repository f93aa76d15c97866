import { describe, expect, it } from 'vitest';
import { formatNumber, roundTo } from '../../core/numbers.js';
import { priceQuorum } from '../../sim/planner/quorum-pricing.js';
import { yieldToHost } from '../host-yield.js';
import type { ChosenBenchProfile } from '../files/bench-profile.js';
import { loadTopology } from './quorum.js';
import { cpuRowFor, fittedHostTimingOf, hostTimingOf, timingLines } from './quorum-timing.js';

/** A bench profile whose fsync is one value (a constant disk), with CPU rows at concurrency 1 and 8. */
function profile(fsyncMs: number, atOne: { requestCostMs: number; applyCostMs: number; clientCostMsPerCall: number; hopClientCostMsPerCall?: number; hopServeCostMsPerCall?: number; serviceAcquireP50Ms?: number; serviceAcquireP99Ms?: number; serviceAcquireSamples?: number }): ChosenBenchProfile {
  return {
    file: 'bench-profile.json',
    byDefault: false,
    profile: {
      kind: 'lockstep-hardware-profile',
      measuredAt: 'then',
      walFsync: { kind: 'empirical', samplesMs: [fsyncMs, fsyncMs] },
      loopbackRtt: { kind: 'empirical', samplesMs: [0.05] },
      cpuByConcurrency: [{ ...atOne, fromConcurrency: 1 }, { requestCostMs: 0.01, applyCostMs: 0.01, clientCostMsPerCall: 0.01, fromConcurrency: 8 }],
    },
  };
}

describe('lockstep quorum --bench-profile: the host term (issue 32)', () => {
  it('a slower profile raises each leader placement by the modelled amount (fsync, etcd request and apply CPU, the arbiter per etcd call)', async () => {
    const preset = await loadTopology('regional-3');
    const topology = { ...preset, linkP99OverMedian: 1, clients: { ...preset.clients, count: 1 } }; // constant links, one client
    const p50s = async (chosen: ChosenBenchProfile): Promise<number[]> => (await priceQuorum(topology, { samplesPerRun: 20, seed: 'timing', host: hostTimingOf(chosen, 1) }, yieldToHost)).byLeader.map((l) => l.simulated!.p50Ms);
    const fast = await p50s(profile(1, { requestCostMs: 0.1, applyCostMs: 0.2, clientCostMsPerCall: 0.5 }));
    const slow = await p50s(profile(3, { requestCostMs: 0.6, applyCostMs: 1.2, clientCostMsPerCall: 2.5 }));
    // One grant txn per acquisition: +0.5 request on the endpoint, +1 apply before the reply, +2 arbiter
    // CPU, and the quorum's fsyncs in parallel, +2: +5.5 ms under every leader. The concurrency-8 row
    // (0.01 ms each) is not the one a single client is priced by.
    expect(slow.map((ms, i) => roundTo(ms - fast[i]!, 2))).toEqual([5.5, 5.5, 5.5]);
    expect(await p50s(profile(1, { requestCostMs: 0.1, applyCostMs: 0.2, clientCostMsPerCall: 0.5 }))).toEqual(fast); // negative control: same profile, same figures
  });

  it("a profile with the served hop's CPU raises the one-client prediction by the client's and serve's cost per call; without it, the hop is unpriced", async () => {
    const preset = await loadTopology('regional-3');
    const topology = { ...preset, linkP99OverMedian: 1, clients: { ...preset.clients, count: 1 } };
    const p50s = async (chosen: ChosenBenchProfile): Promise<number[]> => (await priceQuorum(topology, { samplesPerRun: 20, seed: 'hop', host: hostTimingOf(chosen, 1) }, yieldToHost)).byLeader.map((l) => l.simulated!.p50Ms);
    const costs = { requestCostMs: 0.1, applyCostMs: 0.2, clientCostMsPerCall: 0.5 };
    const without = await p50s(profile(1, costs)); // the control: the same profile as written before the bench measured the hop
    const withHop = await p50s(profile(1, { ...costs, hopClientCostMsPerCall: 0.7, hopServeCostMsPerCall: 1.5 }));
    // One lock.v1 call (acquire) per grant: 0.7 ms on the client, 1.5 ms on the arbiter's thread before it calls etcd.
    expect(withHop.map((ms, i) => roundTo(ms - without[i]!, 2))).toEqual([2.2, 2.2, 2.2]);
    expect(hostTimingOf(profile(1, costs), 1).servedHop).toBeUndefined();
    expect(hostTimingOf(profile(1, { ...costs, hopClientCostMsPerCall: 0.7, hopServeCostMsPerCall: 1.5 }), 1).servedHop).toEqual({ clientMsPerCall: 0.7, serveMsPerCall: 1.5 });
  });

  it("fits the CPU share on the path to the profile's measured service acquire latency, and prints how; a profile without it is not fitted", async () => {
    const costs = { requestCostMs: 0.4, applyCostMs: 0.5, clientCostMsPerCall: 1.2, hopClientCostMsPerCall: 0.8, hopServeCostMsPerCall: 1.5 };
    expect(hostTimingOf(profile(0.2, costs), 1).benchAcquire).toBeUndefined(); // the control: written before, nothing to fit to
    expect(await fittedHostTimingOf(profile(0.2, costs), 1, yieldToHost)).toEqual(hostTimingOf(profile(0.2, costs), 1));
    const fitted = await fittedHostTimingOf(profile(0.2, { ...costs, serviceAcquireP50Ms: 4, serviceAcquireP99Ms: 12 }), 1, yieldToHost);
    expect(fitted.benchAcquire).toEqual({ p50Ms: 4, p99Ms: 12 });
    expect(fitted.cpuOnPathShare).toBeGreaterThan(0);
    expect(fitted.cpuOnPathShare).toBeLessThan(1);
    expect(fitted.fit?.fittedP50Ms).toBeCloseTo(4, 0);
    const priced = await priceQuorum(await loadTopology('regional-3'), { samplesPerRun: 10, runs: 1, seed: 'fit', host: fitted }, yieldToHost);
    const lines = timingLines(priced.timing);
    expect(lines[3]).toBe("  the bench's measured acquire latency, the fit's target: p50 4 / p99 12 ms (the interleaved bench's slices)");
    expect(lines[4]).toMatch(new RegExp(`^  CPU on the grant's path: ${formatNumber(fitted.cpuOnPathShare! * 100, 1)}% of each term above, fitted: the bench's own shape \\(1 client\\(s\\) through lockstep serve, loopback\\)`));
    expect(lines[5]).toMatch(/^ {2}host scheduling delay per acquisition: p99 [\d.]+ ms, 0 for half \(the bench's measured p99 less p50, 8 ms/);
  });

  it('says how many acquisitions the fit target rests on when the bench measured it alone (bench/fit-target.ts)', async () => {
    const costs = { requestCostMs: 0.4, applyCostMs: 0.5, clientCostMsPerCall: 1.2, hopClientCostMsPerCall: 0.8, hopServeCostMsPerCall: 1.5, serviceAcquireP50Ms: 4, serviceAcquireP99Ms: 12 };
    const fitted = await fittedHostTimingOf(profile(0.2, { ...costs, serviceAcquireSamples: 2500 }), 1, yieldToHost);
    expect(fitted.benchAcquire).toEqual({ p50Ms: 4, p99Ms: 12, samples: 2500 });
    const priced = await priceQuorum(await loadTopology('regional-3'), { samplesPerRun: 10, runs: 1, seed: 'fit', host: fitted }, yieldToHost);
    expect(timingLines(priced.timing)[3]).toBe("  the bench's measured acquire latency, the fit's target: p50 4 / p99 12 ms (2500 acquisitions, one client pausing 1-5 ms)");
  });

  it('takes the CPU row measured nearest the client count and names the profile it used', () => {
    const rows = [{ fromConcurrency: 1, requestCostMs: 1 }, { fromConcurrency: 8, requestCostMs: 2 }, { fromConcurrency: 64, requestCostMs: 3 }];
    expect([1, 3, 5, 8, 30, 40, 1000].map((clients) => cpuRowFor(rows, clients)?.requestCostMs)).toEqual([1, 1, 2, 2, 2, 3, 3]);
    expect(cpuRowFor([], 1)).toBeUndefined();
    const host = hostTimingOf({ ...profile(2, { requestCostMs: 0.3, applyCostMs: 0.4, clientCostMsPerCall: 1.5 }), byDefault: true }, 1);
    expect(host).toMatchObject({ source: 'lockstep bench --profile of then (bench-profile.json, the default)', requestCostMs: 0.3, applyCostMs: 0.4, arbiterCostMsPerCall: 1.5, fromConcurrency: 1 });
    expect(timingLines({ source: host.source, fsyncP50Ms: 2, fsyncP99Ms: 2, requestCostMs: 0.3, applyCostMs: 0.4, arbiterCostMsPerCall: 1.5, servedHop: { clientMsPerCall: 0.7, serveMsPerCall: 1.2 }, fromConcurrency: 1, rigLinkCost: { p50Ms: 0.06, p99Ms: 2.1 }, fit: null })).toEqual([
      'host timing: lockstep bench --profile of then (bench-profile.json, the default)',
      '  WAL fsync p50 2 / p99 2 ms; etcd CPU 0.3 ms per request + 0.4 ms per applied entry; arbiter CPU 1.5 ms per etcd call (bench concurrency 1)',
      "  lock.v1 hop CPU: client 0.7 ms + lockstep serve 1.2 ms per call (on the arbiter's thread)",
      "  CPU on the grant's path: all of each term above (not fitted: the profile does not carry the bench's measured acquire latency; a `lockstep bench --profile` of this version does)",
      'rig: +0.06 ms per message on every link (p99 +2.1), a Node proxy hop: pings through one proxy less direct, taken while the client loop ran',
    ]);
  });
});
