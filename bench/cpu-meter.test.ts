import { describe, expect, it } from 'vitest';
import { CpuMeter, CpuTally } from './cpu-meter.js';

describe('CPU per operation', () => {
  it('sums slices and splits leader from followers', () => {
    const tally = new CpuTally();
    tally.add({ clientUs: 0, membersUs: [0, 0, 0] }, { clientUs: 1000, membersUs: [300, 900, 500] }, 5);
    tally.add({ clientUs: 5000, membersUs: [1000, 1000, 1000] }, { clientUs: 6000, membersUs: [1300, 1900, 1500] }, 5);
    expect(tally.perOperation(1)).toEqual({ clientUs: 200, leaderUs: 180, followerUs: 80, etcdUs: 340 });
    expect(tally.perOperation(undefined)).toEqual({ clientUs: 200 });
    expect(new CpuTally().perOperation(0)).toBeUndefined();
  });

  it("adds the serve process's CPU when the workload goes through one (issue 30)", () => {
    const tally = new CpuTally();
    tally.add({ clientUs: 0, membersUs: [] }, { clientUs: 100, membersUs: [] }, 2, [1000, 1600]);
    tally.add({ clientUs: 0, membersUs: [] }, { clientUs: 100, membersUs: [] }, 2, [2000, 2200]);
    expect(tally.perOperation(0)).toEqual({ clientUs: 50, serveUs: 200 });
  });

  it('reports only the client when a member is not a local process', () => {
    const tally = new CpuTally();
    tally.add({ clientUs: 0, membersUs: [] }, { clientUs: 100, membersUs: [] }, 1);
    expect(tally.perOperation(0)).toEqual({ clientUs: 100 });
  });

  it('reads this process and a local pid from /proc', () => {
    const sample = new CpuMeter(() => [process.pid], 0).sample();
    expect(sample.clientUs).toBeGreaterThan(0);
    if (process.platform === 'linux') expect(sample.membersUs).toHaveLength(1);
    expect(new CpuMeter(() => [undefined], 0).sample().membersUs).toEqual([]);
  });
});
