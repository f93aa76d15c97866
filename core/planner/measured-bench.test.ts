import { describe, expect, it } from 'vitest';
import { BenchFileError, measuredBench, parseBenchText } from './measured-bench.js';

// The parts of a `lockstep bench --json` report the planner reads (bench/report.ts), runs ascending by concurrency.
const report = {
  env: { etcdVersion: '3.4.23', members: 3, startedAt: '2026-01-01T00:00:00.000Z' },
  fsync: { p50Ms: 1.9, p99Ms: 8.5 },
  grant: { throughputPerS: 537, runs: [{ concurrency: 1 }, { concurrency: 64 }] },
  keepalive: { throughputPerS: 2785, runs: [{ concurrency: 1 }] },
};

function fieldOf(value: unknown): string {
  try {
    measuredBench(value);
  } catch (error) {
    if (error instanceof BenchFileError) return error.field;
    throw error;
  }
  return '(accepted)';
}

describe('a bench file as the planner reads it', () => {
  it('a report: two quorum writes per grant cycle at the highest concurrency, the keepalive rate, the fsync', () => {
    const measured = measuredBench(report);
    expect(measured.kind).toBe('bench-report');
    expect(measured.writeCeilingPerSecond).toBe(2 * report.grant.throughputPerS);
    expect(measured.writeCeilingSource).toContain('at concurrency 64');
    expect(measured.writeCeilingSource).toContain('measured');
    expect(measured.keepaliveCeilingPerSecond).toBe(report.keepalive.throughputPerS);
    expect(measured.walFsync).toEqual({ kind: 'lognormal', medianMs: report.fsync.p50Ms, p99Ms: report.fsync.p99Ms });
  });

  it('a profile: the CPU-model ceiling and the measured fsync samples', () => {
    const walFsync = { kind: 'empirical' as const, samplesMs: [0.2, 0.3, 1.5] };
    const measured = measuredBench({ kind: 'lockstep-hardware-profile', walFsync, cpuByConcurrency: [{ requestCostMs: 1, applyCostMs: 1 }, { requestCostMs: 0.15, applyCostMs: 0.05 }] });
    expect(measured.kind).toBe('hardware-profile');
    expect(measured.writeCeilingPerSecond).toBeCloseTo(1000 / 0.2, 6);
    expect(measured.keepaliveCeilingPerSecond).toBeNull();
    expect(measured.walFsync).toBe(walFsync);
  });

  it('a captured --json run: the last line is the report', () => {
    const text = `something printed first\n${JSON.stringify(report)}\n`;
    expect(parseBenchText(text).writeCeilingPerSecond).toBe(2 * report.grant.throughputPerS);
    expect(parseBenchText(JSON.stringify(report, null, 2)).kind).toBe('bench-report');
  });

  it('names what is wrong', () => {
    expect(fieldOf(42)).toBe('(document)');
    expect(fieldOf({ env: {} })).toBe('(document)');
    expect(fieldOf({ ...report, grant: { throughputPerS: 0 } })).toBe('grant.throughputPerS');
    expect(fieldOf({ kind: 'lockstep-hardware-profile' })).toBe('walFsync');
    expect(() => parseBenchText('not json\nat all')).toThrow(/not JSON/);
  });
});
