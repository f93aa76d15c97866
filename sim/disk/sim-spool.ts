// The Spool of unprotected grants (ADR-04, core/ports/spool.ts) on a simulated disk: a file of records
// and truncation marks, appended and fsynced. append and truncate resolve once their entry is durable; a
// crash before that never answers (the disk drops the process's fsyncs), so an arbiter never tells a
// holder of a grant the spool may lose. What a crash keeps is the disk's to say (disk.ts): a process
// crash keeps the unsynced tail (the page cache writes it back), a power loss loses it. A read replays
// the file: every record, less those a truncation mark covers.
import type { Spool, UnprotectedRecord } from '../../core/ports/spool.js';
import type { DistributionSpec } from '../kernel/distribution.js';
import type { SimProcess } from '../process/process.js';
import { Disk } from './disk.js';

export type SpoolEntry = { readonly record: UnprotectedRecord } | { readonly truncatedThrough: string };

/** A local SSD's fsync. */
export const SPOOL_FSYNC_LATENCY: DistributionSpec = { kind: 'lognormal', medianMs: 0.8, p99Ms: 5 };

export class SimSpool implements Spool {
  readonly disk: Disk<SpoolEntry>;

  /** One per process, made once: the disk outlives the process's restarts. */
  constructor(process: SimProcess, fsyncLatency: DistributionSpec = SPOOL_FSYNC_LATENCY) {
    this.disk = new Disk<SpoolEntry>(process, { fsyncLatency, name: 'spool' });
  }

  async append(record: UnprotectedRecord): Promise<void> {
    this.disk.write({ record });
    await this.disk.sync();
  }

  read(): Promise<readonly UnprotectedRecord[]> {
    return Promise.resolve(replaySpool(this.disk.allEntries));
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
