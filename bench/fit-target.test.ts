import { describe, expect, it } from 'vitest';
import { measureFitTarget, THINK_MIN_MS, THINK_SPREAD_MS, thinking } from './fit-target.js';
import type { Workload } from './workloads/workload.js';

describe('thinking (the priced loop: a 1-5 ms pause after each cycle)', () => {
  it('runs the operation, then pauses 1 + 4 x random ms, and passes every phase through', async () => {
    const pauses: number[] = [];
    const recorded: Array<[number, number]> = [];
    let random = 0;
    const op = thinking(async (_w, _i, record) => record(0, 3.5), () => random, async (ms) => void pauses.push(ms));
    await op(0, 0, (phase, ms) => recorded.push([phase, ms]));
    random = 0.5;
    await op(0, 1, (phase, ms) => recorded.push([phase, ms]));
    expect(pauses).toEqual([THINK_MIN_MS, THINK_MIN_MS + 0.5 * THINK_SPREAD_MS]);
    expect(recorded).toEqual([[0, 3.5], [0, 3.5]]);
  });
});

describe('measureFitTarget', () => {
  const workload = (phases: string[], latencyMs: (iteration: number) => number): Workload =>
    ({ name: 'service', phases, operation: async (_w: number, iteration: number, record: (phase: number, ms: number) => void) => record(0, latencyMs(iteration)), close: async () => undefined }) as Workload;

  it("measures the acquire phase until the samples asked for: its p50 and p99, and how many it rests on", async () => {
    const lines: string[] = [];
    const target = await measureFitTarget(workload(['acquire', 'release', 'cycle'], (i) => (i % 20 === 19 ? 30 : 2)), (line) => lines.push(line), undefined, { samples: 60, maxMs: 10_000 });
    expect(target.concurrency).toBe(1);
    expect(target.samples).toBeGreaterThanOrEqual(60);
    expect(target.p50Ms).toBeCloseTo(2, 1);
    expect(target.p99Ms).toBeCloseTo(30, 0); // one in twenty is slow: the p99 is a slow one
    expect(lines.at(-1)).toContain(`over ${target.samples} acquisitions`);
  });

  it('stops at its time limit with what it has', async () => {
    const target = await measureFitTarget(workload(['acquire'], () => 1), () => undefined, undefined, { samples: 1_000_000, maxMs: 1 });
    expect(target.samples).toBeGreaterThan(0);
    expect(target.samples).toBeLessThan(1_000_000);
  });

  it('refuses a workload whose first phase is not acquire (a programmer error)', async () => {
    await expect(measureFitTarget(workload(['create'], () => 1), () => undefined)).rejects.toThrow(/first phase is create/);
  });
});
