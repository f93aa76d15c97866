import { describe, expect, it } from 'vitest';
import type { Fault } from './faults.js';
import { compareWithSimulator, gateGroupOf } from './gate-comparison.js';
import { type GateShape, predictGate } from './gate-prediction.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const shape: GateShape = { members: 3, arbiters: 2, clients: 4, keys: 2, durationMs: 30_000, seed: '1' };
const holderPause = (forMs: number): Fault[] => [{ atMs: 8_000, kind: 'pause', target: '@holder', forMs }];

describe('compareWithSimulator', () => {
  it('finds a run equal to its prediction in agreement on every figure both show with enough draws (the same world, the same seed; issue 32)', async () => {
    // A focus schedule: six holder pauses, enough draws for a 95% interval of each median.
    const six: Fault[] = Array.from({ length: 6 }, (_, i) => ({ atMs: 8_000 + i * 12_000, kind: 'pause', target: '@holder', forMs: 6_000 }));
    const long = { ...shape, durationMs: 80_000 };
    const real = await predictGate(long, six, { yieldToHost });
    const { rows } = await compareWithSimulator({ ...real, originMs: 0 }, long, six, { yieldToHost });
    const shown = rows.filter((r) => r.measuredMedian !== undefined && r.predictedMedian !== undefined);
    expect(shown.filter((r) => r.verdict !== 'too few draws').map((r) => r.figure)).toEqual(expect.arrayContaining(['nextGrant', 'victimKeyGrant', 'fence']));
    expect(shown.every((r) => r.kind === 'pause @holder' && (r.verdict === 'agrees' || r.verdict === 'too few draws'))).toBe(true);
    // One fault of a kind is one draw: the row says it cannot tell rather than compare two medians of one.
    const single = await compareWithSimulator({ ...real, originMs: 0 }, long, six.slice(0, 1), { yieldToHost });
    expect(single.rows.find((r) => r.figure === 'nextGrant')?.verdict).toBe('too few draws');
  });

  it("tells a real run whose holder paused 15 s from a prediction of 6 s: the fence figure is off, and says so", async () => {
    const real = await predictGate(shape, holderPause(15_000), { yieldToHost });
    const { rows, measured } = await compareWithSimulator({ ...real, originMs: 0 }, shape, holderPause(6_000), { yieldToHost });
    const fence = rows.find((r) => r.figure === 'fence');
    expect(measured.perKind[0]?.fence?.median).toBeGreaterThanOrEqual(15_000); // the paused library fences at its wake
    expect(fence?.within).toBe(false);
    expect(fence?.verdict).toBe('too few draws'); // one draw each: the ratio is shown, the verdict withheld
    expect(fence?.ratio).toBeLessThan(0.75);
  });

  it('shifts the real history by its origin: the same events 5 s later on the gate clock measure the same', async () => {
    const real = await predictGate(shape, holderPause(6_000), { yieldToHost });
    const later = { events: real.events.map((e) => ({ ...e, time: e.time + 5_000 })), fences: real.fences.map((f) => ({ ...f, atMs: f.atMs + 5_000 })), applied: real.applied, originMs: 5_000 };
    const { rows } = await compareWithSimulator(later, shape, holderPause(6_000), { yieldToHost });
    expect(rows.filter((r) => r.ratio !== undefined).every((r) => Math.abs((r.ratio as number) - 1) < 1e-9)).toBe(true);
  });

  it('leaves clock drift out of both sides (it starts with the process), unless told to keep it', async () => {
    const faults: Fault[] = [{ atMs: 0, kind: 'clock-drift', target: 'client-2', ppm: -20_000 }, ...holderPause(6_000)];
    const real = await predictGate(shape, faults, { yieldToHost });
    const kinds = async (skipKinds?: readonly string[]) => new Set((await compareWithSimulator({ ...real, originMs: 0 }, shape, faults, { yieldToHost, ...(skipKinds === undefined ? {} : { skipKinds }) })).rows.map((r) => r.kind));
    expect(await kinds()).toEqual(new Set(['pause @holder']));
    expect(await kinds([])).toEqual(new Set(['clock-drift client', 'pause @holder']));
  });

  it('pools several simulated seeds of the schedule into the prediction', async () => {
    const real = await predictGate(shape, holderPause(6_000), { yieldToHost });
    const one = await compareWithSimulator({ ...real, originMs: 0 }, shape, holderPause(6_000), { yieldToHost });
    const told: string[] = [];
    const three = await compareWithSimulator({ ...real, originMs: 0 }, shape, holderPause(6_000), { yieldToHost, simulatedRuns: 3, onSeed: (k, of, seed) => told.push(`${k} of ${of}: ${seed}`) });
    expect(three.seeds).toEqual(['1', '1/2', '1/3']);
    expect(told).toEqual(['1 of 3: 1', '2 of 3: 1/2', '3 of 3: 1/3']); // the progress line's input
    expect(one.predicted.perKind[0]?.faults).toBe(1);
    expect(three.predicted.perKind[0]?.faults).toBe(3);
    expect(three.prediction.traceHash).toBe(one.prediction.traceHash); // the first is the gate's own seed
    await expect(compareWithSimulator({ ...real, originMs: 0 }, shape, holderPause(6_000), { yieldToHost, simulatedRuns: 0 })).rejects.toThrow(/simulatedRuns 0 must be a whole number from 1 to 50/);
  });

  it('groups by kind and what it hit', () => {
    expect(gateGroupOf({ atMs: 0, kind: 'pause', target: 'etcd-1', named: '@leader' })).toBe('pause @leader');
    expect(gateGroupOf({ atMs: 0, kind: 'crash', target: 'arbiter-2', named: 'arbiter-2' })).toBe('crash arbiter');
    expect(gateGroupOf({ atMs: 0, kind: 'partition' })).toBe('partition');
  });
});
