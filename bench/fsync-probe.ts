// The disk floor: how long fdatasync takes on the disk that holds etcd's data dir. A grant commits when
// a majority has written its WAL entry and fdatasync'ed it, so no grant can be faster than this (ADR-06).
// The probe is etcd's own hardware check in miniature (etcd docs, "hardware": fio with --fdatasync=1,
// --bs=2300, sequential writes; p99 should be under 10 ms): append a WAL-entry-sized block, fdatasync,
// repeat, timing each pair.
import { closeSync, fdatasyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LatencyHistogram, type LatencySummary } from './histogram.js';

/** etcd's guidance uses 2300-byte writes: a typical WAL entry. */
export const FSYNC_BLOCK_BYTES = 2300;
/** etcd's hardware guidance: fdatasync p99 under 10 ms. */
export const ETCD_FSYNC_P99_GUIDANCE_MS = 10;

export interface FsyncProbeOptions {
  /** Directory on the disk under test (etcd's data dir); the probe file is removed afterwards. */
  readonly dir: string;
  /** Stop after this many samples... */
  readonly maxSamples: number;
  /** ...or after this long, whichever comes first. */
  readonly maxDurationMs: number;
  readonly signal?: AbortSignal;
}

export interface FsyncResult extends LatencySummary {
  readonly dir: string;
  readonly blockBytes: number;
  /** p99 under etcd's 10 ms guidance. */
  readonly meetsEtcdGuidance: boolean;
}

export interface FsyncProbe {
  readonly result: FsyncResult;
  /** Every sample in ms, in the order taken (for a measured timing profile). */
  readonly samplesMs: readonly number[];
}

/**
 * Runs synchronously (blocking the event loop) on purpose: an fdatasync through libuv's thread pool
 * would add a thread hop to every sample. Nothing else runs while the probe does.
 */
export function probeFsync(options: FsyncProbeOptions): FsyncProbe {
  if (!(options.maxSamples >= 1)) throw new RangeError(`maxSamples must be at least 1, got ${options.maxSamples}`);
  const path = join(options.dir, `lockstep-fsync-probe-${process.pid}.bin`);
  const block = Buffer.alloc(FSYNC_BLOCK_BYTES, 0x5a);
  const histogram = new LatencyHistogram();
  const samplesMs: number[] = [];
  const fd = openSync(path, 'w', 0o600);
  try {
    const startMs = performance.now();
    while (samplesMs.length < options.maxSamples && performance.now() - startMs < options.maxDurationMs && options.signal?.aborted !== true) {
      const beforeMs = performance.now();
      writeSync(fd, block);
      fdatasyncSync(fd);
      const tookMs = performance.now() - beforeMs;
      histogram.record(tookMs);
      samplesMs.push(tookMs);
    }
  } finally {
    closeSync(fd);
    unlinkSync(path);
  }
  const summary = histogram.summary();
  return {
    result: { ...summary, dir: options.dir, blockBytes: FSYNC_BLOCK_BYTES, meetsEtcdGuidance: summary.p99Ms < ETCD_FSYNC_P99_GUIDANCE_MS },
    samplesMs,
  };
}
