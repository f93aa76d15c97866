import { afterEach, describe, expect, it, vi } from 'vitest';
import { LoopTally, MAX_ERRORS_PER_RUN, type Operation, paced, runSlice } from './closed-loop.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('closed-loop slices', () => {
  it('runs every worker, records each phase, and counts completions in the measured window', async () => {
    const tally = new LoopTally(4, ['work', 'cycle']);
    const workers = new Set<number>();
    await runSlice({
      tally,
      warmupMs: 50,
      durationMs: 400,
      operation: async (worker, _iteration, record) => {
        workers.add(worker);
        await sleep(10);
        record(0, 10);
        record(1, 12);
      },
    });
    const result = tally.result();
    expect([...workers].sort()).toEqual([0, 1, 2, 3]);
    // 4 workers x 400 ms / ~10-15 ms per operation (timers are coarse on a loaded machine).
    expect(result.operations).toBeGreaterThan(40);
    expect(result.operations).toBeLessThanOrEqual(4 * 41);
    expect(result.measuredMs).toBeGreaterThanOrEqual(399);
    expect(result.phases['work']?.count).toBe(result.operations);
    expect(result.phases['cycle']?.p50Ms).toBeCloseTo(12, 1);
    // Throughput also counts the slice's tail: at least the window's operations, at most 4 workers / 10 ms.
    expect(result.throughputPerS).toBeGreaterThanOrEqual(((result.operations - 4) * 1000) / tally.elapsedAfterWarmupMs);
    expect(result.throughputPerS).toBeLessThanOrEqual(4 * 100 + 1);
  });

  it('does not show an operation slower than the slice near zero: throughput is completions over elapsed time', async () => {
    const tally = new LoopTally(4, ['op']);
    const completed = await runSlice({ tally, warmupMs: 0, durationMs: 100, operation: () => sleep(300) });
    const result = tally.result();
    // No operation ends inside the 100 ms window, so the windowed count (the old measure) is 0 ...
    expect(result.operations).toBe(0);
    expect(completed).toBe(4);
    // ... while 4 workers each finished one 300 ms operation: 4 / >= 0.3 s, i.e. near 13/s, not 0.
    expect(tally.completedAfterWarmup).toBe(4);
    expect(tally.elapsedAfterWarmupMs).toBeGreaterThanOrEqual(299);
    expect(result.throughputPerS).toBeGreaterThan(0);
    expect(result.throughputPerS).toBeCloseTo((4 * 1000) / tally.elapsedAfterWarmupMs, 2);
  });

  it('leaves warm-up completions out of throughput', async () => {
    const tally = new LoopTally(1, ['op']);
    await runSlice({ tally, warmupMs: 200, durationMs: 50, operation: () => sleep(5) });
    expect(tally.completedAfterWarmup).toBeLessThan(50 / 4);
    expect(tally.elapsedAfterWarmupMs).toBeLessThan(200);
  });

  it('accumulates over several slices', async () => {
    const tally = new LoopTally(1, ['op']);
    const operation = async (_w: number, _i: number, record: (phase: number, ms: number) => void) => {
      await sleep(5);
      record(0, 5);
    };
    await runSlice({ tally, warmupMs: 0, durationMs: 100, operation });
    const afterOne = tally.result();
    await runSlice({ tally, warmupMs: 0, durationMs: 100, operation });
    expect(tally.result().operations).toBeGreaterThan(afterOne.operations);
    expect(tally.result().measuredMs).toBeGreaterThanOrEqual(199);
  });

  it('counts errors, keeps the first message, and stops a workload that keeps failing', async () => {
    const tally = new LoopTally(2, ['op']);
    await runSlice({
      tally,
      warmupMs: 0,
      durationMs: 10_000,
      operation: async (worker, iteration) => {
        await sleep(1);
        throw new Error(`boom ${worker}/${iteration}`);
      },
    });
    const result = tally.result();
    expect(result.errors).toBeGreaterThanOrEqual(MAX_ERRORS_PER_RUN);
    expect(result.errors).toBeLessThanOrEqual(MAX_ERRORS_PER_RUN + 2);
    expect(result.firstError).toMatch(/^boom/);
    expect(result.operations).toBe(0);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const tally = new LoopTally(2, ['op']);
    setTimeout(() => controller.abort(), 100);
    const startMs = performance.now();
    await runSlice({ tally, warmupMs: 0, durationMs: 30_000, signal: controller.signal, operation: () => sleep(5) });
    expect(performance.now() - startMs).toBeLessThan(5_000);
  });

  it('refuses a concurrency that is not a whole number >= 1', () => {
    expect(() => new LoopTally(0, ['op'])).toThrow(/concurrency/);
    expect(() => new LoopTally(1.5, ['op'])).toThrow(/concurrency/);
  });
});

describe('paced (one operation per period and worker)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sleeps out the rest of the period after a quick operation, none after a slow one, and is the operation itself for 0', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    const quick: Operation = async (_w, _i, record) => record(0, 1);
    expect(paced(quick, 0)).toBe(quick);
    let done = false;
    void paced(quick, 20)(0, 0, () => undefined).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(19);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    const slow: Operation = () => new Promise((resolve) => setTimeout(resolve, 30));
    done = false;
    void paced(slow, 20)(0, 0, () => undefined).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(30);
    expect(done).toBe(true); // it took longer than the period: no rest after it
  });
});
