// The Spool of unprotected grants (ADR-04, core/ports/spool.ts) on a simulated disk: a file of records
// and truncation marks, appended and fsynced. append and truncate resolve once their entry is durable; a
// crash before that never answers (the disk drops the process's fsyncs), so an arbiter never tells a
// holder of a grant the spool may lose. A crash loses the unsynced tail, a power loss as disk.ts models
// it and a process crash too: the spool is stricter than the page cache that would usually save it, so a
// run never leans on an append nobody fsynced. A read replays the file: every record that survived, less
// those a truncation mark covers.
import type { Spool, UnprotectedRecord } from '../../core/ports/spool.js';
import type { DistributionSpec } from '../kernel/distribution.js';
import type { SimProcess } from '../process/process.js';
import { Disk } from './disk.js';

export type SpoolEntry = { readonly record: UnprotectedRecord } | { readonly truncatedThrough: string };

/** A local SSD's fsync. */
export const SPOOL_FSYNC_LATENCY: DistributionSpec = { kind: 'lognormal', medianMs: 0.8, p99Ms: 5 };

export class SimSpool implements Spool {
  readonly disk: Disk<SpoolEntry>;
  /** Positions [from, to) of the file a process crash found unsynced: lost, whatever a later fsync covers. */
  private readonly lost: (readonly [number, number])[] = [];

  /** One per process, made once: the disk outlives the process's restarts. */
  constructor(process: SimProcess, fsyncLatency: DistributionSpec = SPOOL_FSYNC_LATENCY) {
    // Before the disk's own hook, which counts a process crash's unsynced tail as written back (a power
    // loss the disk drops itself).
    process.onCrash((_, { powerLoss }) => {
      if (!powerLoss) this.lost.push([this.disk.durableLength, this.disk.allEntries.length]);
    });
    this.disk = new Disk<SpoolEntry>(process, { fsyncLatency, name: 'spool' });
  }

  /** Every entry that survived, in file order (truncation marks included). */
  get entries(): readonly SpoolEntry[] {
    return this.disk.allEntries.filter((_, i) => !this.lost.some(([from, to]) => i >= from && i < to));
  }

  async append(record: UnprotectedRecord): Promise<void> {
    this.disk.write({ record });
    await this.disk.sync();
  }

  read(): Promise<readonly UnprotectedRecord[]> {
    return Promise.resolve(replaySpool(this.entries));
  }

  async truncate(throughId: string): Promise<void> {
    this.disk.write({ truncatedThrough: throughId });
    await this.disk.sync();
  }
}

/** The records a file of entries holds: a mark removes the records up to and including its id, if listed. */
export function replaySpool(entries: readonly SpoolEntry[]): UnprotectedRecord[] {
  let records: UnprotectedRecord[] = [];
  for (const entry of entries) {
    if ('record' in entry) records.push(entry.record);
    else {
      const through = records.findIndex((r) => r.id === entry.truncatedThrough);
      if (through >= 0) records = records.slice(through + 1);
    }
  }
  return records;
}
