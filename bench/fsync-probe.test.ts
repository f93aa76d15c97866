import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FSYNC_BLOCK_BYTES, probeFsync } from './fsync-probe.js';
import { probeLoopbackRtt } from './rtt-probe.js';

describe('disk and network floors', () => {
  it('fdatasync probe: bounded samples, ordered percentiles, and the probe file removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-fsync-'));
    try {
      const { result, samplesMs } = probeFsync({ dir, maxSamples: 50, maxDurationMs: 5_000 });
      expect(samplesMs.length).toBeGreaterThan(0);
      expect(samplesMs.length).toBeLessThanOrEqual(50);
      expect(result.count).toBe(samplesMs.length);
      expect(result.blockBytes).toBe(FSYNC_BLOCK_BYTES);
      expect(result.p50Ms).toBeGreaterThan(0);
      expect(result.p50Ms).toBeLessThanOrEqual(result.p99Ms);
      expect(result.meetsEtcdGuidance).toBe(result.p99Ms < 10);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('loopback RTT probe: bounded samples, positive and ordered', async () => {
    const { result, samplesMs } = await probeLoopbackRtt({ maxSamples: 100, maxDurationMs: 5_000 });
    expect(samplesMs.length).toBe(100);
    expect(result.p50Ms).toBeGreaterThan(0);
    expect(result.p50Ms).toBeLessThanOrEqual(result.p99Ms);
  });
});
