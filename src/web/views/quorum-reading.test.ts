import { describe, expect, it } from 'vitest';
import type { LeaderPricing, SimulatedLatency, TopologyPricing } from '../workbench-api.js';
import { p99Reading, pinningNote, settingLine } from './quorum-reading.js';

const latency = (p99Ms: number): SimulatedLatency => ({ samplesMs: [p99Ms / 2, p99Ms], p50Ms: p99Ms / 2, p99Ms, p999Ms: p99Ms });

function leader(name: string, region: string, p99Ms: number | null): LeaderPricing {
  return { leader: name, region, runs: p99Ms === null ? 0 : 1, endpoints: p99Ms === null ? [] : ['etcd-use'], simulated: p99Ms === null ? null : latency(p99Ms), medianMs: 1, p99BoundMs: 2, loadedP99BoundMs: 3, failoverP99BoundMs: 4 };
}

function topology(p99Ms: number, byLeader: readonly LeaderPricing[] = []): TopologyPricing {
  return {
    name: 'stretched',
    description: '',
    members: 3,
    runs: 3,
    samplesPerRun: 10,
    setting: { clients: 8, clientsHall: 'use-a', arbiterHall: 'use-a', regionOfHall: { 'use-a': 'us-east' }, homeEndpoint: 'etcd-use' },
    leaders: ['etcd-use', 'etcd-usw', 'etcd-euw'],
    simulated: latency(p99Ms),
    floorMs: 30,
    quorumFloorMs: 25,
    upperBoundMs: 100,
    loadedUpperBoundMs: 120,
    failoverUpperBoundMs: 150,
    throughputPerSecond: 1000,
    byLeader,
    timing: { source: 'the simulator defaults', fsyncP50Ms: 1, fsyncP99Ms: 2, requestCostMs: 0.05, applyCostMs: 0, arbiterCostMsPerCall: 0, fromConcurrency: null, rigLinkCost: null, servedHop: null, fit: null },
  };
}

describe('p99Reading', () => {
  it('places the p99 between the one-in-flight and the loaded bound, each edge inclusive', () => {
    expect([100, 100.01, 120, 120.01].map((p99) => p99Reading(topology(p99)).verdict)).toEqual(['under-upper', 'under-loaded', 'under-loaded', 'over-loaded']);
  });

  it('explains a p99 above the one-in-flight bound by the clients queueing, naming both bounds', () => {
    const { text } = p99Reading(topology(110));
    expect(text).toContain('100 ms');
    expect(text).toContain('120 ms');
    expect(text).toMatch(/8 clients keep the disks busy/);
  });
});

describe('pinningNote', () => {
  it('names the best placement and what it gives against the unpinned p99 and the worst placement', () => {
    const note = pinningNote(topology(157, [leader('etcd-use', 'us-east', 38), leader('etcd-usw', 'us-west', 70), leader('etcd-euw', 'eu-west', 157)]));
    expect(note).toMatch(/pinning the leader to etcd-use \(us-east\) would give p99 38 ms instead of 157 ms unpinned \(worst placement etcd-euw \(eu-west\): 157 ms\)/);
  });

  it('says pinning buys little when the placements overlap: the best p99 at or above the worst median', () => {
    // latency(p99) puts the median at half the p99: the worst placement's median is 10 here.
    expect(pinningNote(topology(20, [leader('a', 'eu-1', 10), leader('b', 'eu-1', 20)]))).toMatch(/the placements overlap .* pinning the leader buys little/);
    expect(pinningNote(topology(20, [leader('a', 'eu-1', 9.99), leader('b', 'eu-1', 20)]))).toMatch(/pinning the leader to a \(eu-1\) would give p99 9.99 ms/);
  });

  it('asks for more runs when fewer than two placements were measured', () => {
    expect(pinningNote(topology(10, [leader('a', 'eu-1', 9), leader('b', 'eu-1', null)]))).toMatch(/only 1 leader placement measured/);
  });
});

describe('settingLine', () => {
  it("says where the callers sit and the endpoints the runs measured through, from the topology's data", () => {
    expect(settingLine(topology(10, [leader('etcd-use', 'us-east', 9), leader('etcd-euw', 'eu-west', 20)]))).toBe(
      "stretched: 8 clients and the arbiter in hall use-a (us-east); the arbiter's etcd client on etcd-use; endpoints measured through: etcd-use.",
    );
  });
});
