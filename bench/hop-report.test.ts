import { describe, expect, it } from 'vitest';
import type { ClosedLoopResult } from './closed-loop.js';
import type { CpuPerOperation } from './cpu-meter.js';
import { hopReport, hopTable } from './hop-report.js';
import { type MeasuredRun, workloadReport } from './report.js';
import { capacityOf } from './serve-capacity.js';

function run(concurrency: number, throughputPerS: number, cycleP50Ms: number, cpu: CpuPerOperation): MeasuredRun {
  const result: ClosedLoopResult = {
    concurrency,
    measuredMs: 1000,
    operations: throughputPerS,
    throughputPerS,
    phases: { acquire: { count: 10, p50Ms: cycleP50Ms / 2, p99Ms: cycleP50Ms, p999Ms: cycleP50Ms, maxMs: cycleP50Ms, meanMs: cycleP50Ms / 2 }, cycle: { count: 10, p50Ms: cycleP50Ms, p99Ms: cycleP50Ms * 2, p999Ms: cycleP50Ms * 3, maxMs: cycleP50Ms * 3, meanMs: cycleP50Ms } },
    errors: 0,
  };
  return { ...result, cpu };
}

describe('the service hop against the floor (issue 30)', () => {
  const floor = workloadReport('rawTxn', [run(1, 500, 2, { clientUs: 1000, etcdUs: 500 }), run(64, 1000, 40, { clientUs: 800, etcdUs: 300 })]);
  const inProcess = workloadReport('grant', [run(1, 400, 2.5, { clientUs: 1500, etcdUs: 500 }), run(64, 800, 50, { clientUs: 1200, etcdUs: 300 })]);
  const service = workloadReport('service', [run(1, 350, 3, { clientUs: 600, serveUs: 2000, etcdUs: 500 }), run(64, 700, 60, { clientUs: 500, serveUs: 1800, etcdUs: 300 })]);

  it('gives every path its ratios to the floor and its CPU per process, and judges the four goals', () => {
    const tls = workloadReport('serviceTls', [run(1, 330, 3.2, { clientUs: 700, serveUs: 2100, etcdUs: 500 }), run(64, 600, 70, { clientUs: 550, serveUs: 2000, etcdUs: 300 })]);
    const report = hopReport({ floor, inProcess, service, serviceTls: tls });
    expect(report.rows).toHaveLength(8);
    const tlsAt1 = report.rows.find((r) => r.path.includes('mTLS') && r.concurrency === 1);
    expect(tlsAt1).toMatchObject({ p50OverFloor: 1.6, throughputOverFloor: 0.66, cpuUs: { client: 700, serve: 2100, etcd: 500 }, cpuOverFloor: 2.2 });
    expect(report.rows[0]).toMatchObject({ p50OverFloor: 1, cpuUs: { serve: null } });
    // 3.2/2.5 = 1.28 <= 1.3; 70/50 = 1.4 <= 1.5; 600/800 = 0.75 >= 0.7; 2000/1200 = 1.667 <= 2.
    expect(report.goals.map((g) => [g.value, g.met])).toEqual([[1.28, true], [1.4, true], [0.75, true], [1.667, true]]);
    expect(hopTable(report)[0]).toContain('p50 x floor');
  });

  it('marks the goals missed when the service path is slow or costly (the negative control)', () => {
    const slow = workloadReport('serviceTls', [run(1, 100, 20, { clientUs: 4000, serveUs: 9000 }), run(64, 200, 500, { clientUs: 3000, serveUs: 7000 })]);
    expect(hopReport({ floor, inProcess, service, serviceTls: slow }).goals.map((g) => g.met)).toEqual([false, false, false, false]);
  });

  it('takes as capacity the best throughput of a step that kept the p99 bound, and none when no step did', () => {
    const steps = [{ concurrency: 1, errors: 0, cyclesPerS: 100, cycleP99Ms: 10 }, { concurrency: 2, errors: 0, cyclesPerS: 180, cycleP99Ms: 30 }, { concurrency: 4, errors: 0, cyclesPerS: 250, cycleP99Ms: 70 }, { concurrency: 8, errors: 3, cyclesPerS: 200, cycleP99Ms: 20 }];
    expect(capacityOf(steps)).toMatchObject({ sustainedCyclesPerS: 180, atConcurrency: 2 });
    expect(capacityOf([{ concurrency: 1, errors: 50, cyclesPerS: 0, cycleP99Ms: 0 }])).toMatchObject({ sustainedCyclesPerS: null });
    expect(capacityOf(steps, 5)).toMatchObject({ sustainedCyclesPerS: null, atConcurrency: null });
  });
});
