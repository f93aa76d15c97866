import { describe, expect, it } from 'vitest';
import { roundTo } from '../../core/numbers.js';
import { validateTopology, type Topology } from '../../core/planner/topology.js';
import { type HostTiming, leaderCostMsPerCycle, onPathCosts, timedTopology, withRigCost } from './host-timing.js';
import { priceQuorum } from './quorum-pricing.js';
import { arbiterThreadCharges } from './served-hop.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

// regional-3's shape with every part constant (links, disks) and one client: each acquisition takes the
// same time, so what a host term adds shows exactly.
const regional: Topology = validateTopology({
  name: 'regional-constant',
  halls: [
    { name: 'a', region: 'eu-1' },
    { name: 'b', region: 'eu-1' },
    { name: 'c', region: 'eu-1' },
  ],
  rttMs: [
    [0.2, 0.5, 0.6],
    [0.5, 0.2, 0.5],
    [0.6, 0.5, 0.2],
  ],
  linkP99OverMedian: 1,
  fsync: { kind: 'constant', ms: 1 },
  members: [
    { name: 'etcd-a', hall: 'a', fsync: { kind: 'constant', ms: 0.5 } },
    { name: 'etcd-b', hall: 'b' },
    { name: 'etcd-c', hall: 'c' },
  ],
  arbiter: { hall: 'a' },
  clients: { hall: 'a', count: 1 },
});

/** Each leader's p50 (every acquisition of a run takes the same time here), by leader. */
async function p50ByLeader(host: HostTiming | undefined): Promise<Record<string, number>> {
  const priced = await priceQuorum(regional, { samplesPerRun: 20, seed: 'host', ...(host === undefined ? {} : { host }) }, yieldToHost);
  return Object.fromEntries(priced.byLeader.map((l) => [l.leader, l.simulated!.p50Ms]));
}

const added = (slow: Record<string, number>, base: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(slow).map(([leader, ms]) => [leader, roundTo(ms - base[leader]!, 2)]));

describe("the quorum model's host term (issue 32)", () => {
  it("prices the rig's cost per message on every link: 6 messages when the endpoint leads, 8 when it forwards", async () => {
    const base = await p50ByLeader(undefined);
    const rig = await p50ByLeader({ source: 'rig', rigLinkCost: { p50Ms: 0.5, p99Ms: 0.5 } });
    // client -> arbiter -> endpoint (-> leader) -> follower -> leader (-> endpoint) -> arbiter -> client.
    expect(added(rig, base)).toEqual({ 'etcd-a': 3, 'etcd-b': 4, 'etcd-c': 4 });
  });

  it("prices the served lock.v1 hop's CPU: the client's and serve's per call, once per acquire, serve's on the arbiter's thread (served-hop.ts)", async () => {
    const arbiter = await p50ByLeader({ source: 'arbiter', arbiterCostMsPerCall: 1 });
    const hop = await p50ByLeader({ source: 'hop', arbiterCostMsPerCall: 1, servedHop: { clientMsPerCall: 0.3, serveMsPerCall: 0.9 } });
    expect(added(hop, arbiter)).toEqual({ 'etcd-a': 1.2, 'etcd-b': 1.2, 'etcd-c': 1.2 });
    expect(arbiterThreadCharges(0, undefined)).toEqual({}); // nothing to charge: the world unwrapped
    expect(Object.keys(arbiterThreadCharges(0, { clientMsPerCall: 0.3, serveMsPerCall: 0.9 })).sort()).toEqual(['wrapArbiterLog', 'wrapArbiterService']);
  });

  it('pays only the fitted share of every CPU term on the path (host-fit.ts); the throughput ceiling pays all of it', async () => {
    const cpu: HostTiming = { source: 'cpu', requestCostMs: 0.4, applyCostMs: 0.6, arbiterCostMsPerCall: 1, servedHop: { clientMsPerCall: 0.3, serveMsPerCall: 0.9 } };
    const base = await p50ByLeader({ source: 'none', requestCostMs: 0, applyCostMs: 0 });
    const all = added(await p50ByLeader(cpu), base);
    const half = added(await p50ByLeader({ ...cpu, cpuOnPathShare: 0.5 }), base);
    expect(Object.values(all).every((ms) => ms > 2)).toBe(true); // the control: the CPU terms add something to halve
    expect(half).toEqual(Object.fromEntries(Object.entries(all).map(([leader, ms]) => [leader, roundTo(ms / 2, 2)])));
    expect(onPathCosts({ ...cpu, cpuOnPathShare: 0.5 })).toMatchObject({ requestCostMs: 0.2, applyCostMs: 0.3, arbiterCostMsPerCall: 0.5, servedHop: { clientMsPerCall: 0.15, serveMsPerCall: 0.45 } });
    expect(onPathCosts(cpu)).toBe(cpu); // not fitted: all of it
    expect(leaderCostMsPerCycle({ ...cpu, cpuOnPathShare: 0.5 })).toBe(leaderCostMsPerCycle(cpu));
  });

  it("replaces the topology's disks with the host's, and adds the rig's median and p99 to a link's", () => {
    const timed = timedTopology(regional, { source: 'x', walFsync: { kind: 'empirical', samplesMs: [2, 4] } });
    expect(timed.fsync).toEqual({ kind: 'empirical', samplesMs: [2, 4] });
    expect(timed.members.map((m) => m.fsync)).toEqual([undefined, undefined, undefined]); // etcd-a's own 0.5 ms replaced too
    expect(timedTopology(regional, undefined)).toBe(regional);
    expect(withRigCost({ kind: 'constant', ms: 15 }, { p50Ms: 0.1, p99Ms: 2 })).toEqual({ kind: 'lognormal', medianMs: 15.1, p99Ms: 17 });
    expect(withRigCost({ kind: 'lognormal', medianMs: 1, p99Ms: 1.5 }, { p50Ms: 0.2, p99Ms: 0.2 })).toEqual({ kind: 'lognormal', medianMs: 1.2, p99Ms: 1.7 });
    expect(withRigCost({ kind: 'constant', ms: 15 }, { p50Ms: 0.3, p99Ms: 0.3 })).toEqual({ kind: 'constant', ms: 15.3 });
    expect(withRigCost({ kind: 'constant', ms: 15 }, undefined)).toEqual({ kind: 'constant', ms: 15 });
  });
});
