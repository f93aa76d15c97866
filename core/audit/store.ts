// The AuditStore port (ADR-21): where the tailer puts what it read. Embedded by default (DuckDB, src/audit/),
// in memory in the simulator (memory-store.ts); a server store (ClickHouse, PostgreSQL) is another
// implementation of these two methods, and the tailer does not change.
import type { ClusterId } from '../units.js';
import type { AuditCheckpoint, AuditGap, AuditRecord } from './events.js';

/** What one flush of the tailer writes, as one transaction. */
export interface AuditBatch {
  readonly records: readonly AuditRecord[];
  readonly gaps: readonly AuditGap[];
  /** Every revision up to here is in `records` now or was written before (or lies in a gap). */
  readonly checkpoint: AuditCheckpoint;
}

export interface AuditStore {
  /**
   * Writes the batch atomically: all of it or nothing. A record whose (cluster ID, revision, key) is
   * already stored is skipped, so a replay after a crash writes each event once; a checkpoint never moves
   * back (a tailer that lost its election and writes late cannot undo a newer one's progress).
   */
  write(batch: AuditBatch): Promise<void>;
  /** The checkpoint of one cluster, or undefined when the store has never tailed it. */
  checkpoint(clusterId: ClusterId): Promise<AuditCheckpoint | undefined>;
}
