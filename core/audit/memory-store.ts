// An AuditStore in memory: the simulator's (it lives outside the tailer's process, as a database file
// outlives its writer, so a crashed tailer finds its checkpoint again) and the tests'. It keeps the same
// promises as the embedded store: idempotent on (cluster ID, revision, key), checkpoints never move back.
import type { ClusterId } from '../units.js';
import { type AuditCheckpoint, type AuditGap, type AuditRecord, auditEventId } from './events.js';
import type { AuditBatch, AuditStore } from './store.js';

/** A replay that offered another event under a stored event's key: the two readings of the log disagree. */
export interface AuditConflict {
  readonly stored: AuditRecord;
  readonly offered: AuditRecord;
}

export class MemoryAuditStore implements AuditStore {
  private readonly byId = new Map<string, AuditRecord>();
  private readonly gapList: AuditGap[] = [];
  private readonly checkpoints = new Map<ClusterId, AuditCheckpoint>();
  private readonly conflictList: AuditConflict[] = [];
  private writeCount = 0;

  write(batch: AuditBatch): Promise<void> {
    for (const record of batch.records) {
      const id = auditEventId(record);
      const stored = this.byId.get(id);
      if (stored === undefined) this.byId.set(id, record);
      else if (!sameEvent(stored, record)) this.conflictList.push({ stored, offered: record });
    }
    for (const gap of batch.gaps) {
      // One gap per (cluster, first revision), reaching as far as any report of it (as the DuckDB store keeps them).
      const index = this.gapList.findIndex((g) => g.clusterId === gap.clusterId && g.fromRevision === gap.fromRevision);
      if (index < 0) this.gapList.push(gap);
      else if ((this.gapList[index] as AuditGap).toRevision < gap.toRevision) this.gapList[index] = gap;
    }
    const known = this.checkpoints.get(batch.checkpoint.clusterId);
    if (known === undefined || batch.checkpoint.revision >= known.revision) this.checkpoints.set(batch.checkpoint.clusterId, batch.checkpoint);
    this.writeCount += 1;
    return Promise.resolve();
  }

  checkpoint(clusterId: ClusterId): Promise<AuditCheckpoint | undefined> {
    return Promise.resolve(this.checkpoints.get(clusterId));
  }

  /** Every stored event, in (cluster, revision, key) insertion order of first write. */
  get records(): readonly AuditRecord[] {
    return [...this.byId.values()];
  }

  get gaps(): readonly AuditGap[] {
    return this.gapList;
  }

  get conflicts(): readonly AuditConflict[] {
    return this.conflictList;
  }

  /** How many batches were written (flushes). */
  get writes(): number {
    return this.writeCount;
  }

  allCheckpoints(): readonly AuditCheckpoint[] {
    return [...this.checkpoints.values()];
  }
}

/** Two readings of one event agree when everything but when the tailer saw it is equal. */
function sameEvent(a: AuditRecord, b: AuditRecord): boolean {
  const { observedAtMs: _a, timeExact: _b, ...left } = a;
  const { observedAtMs: _c, timeExact: _d, ...right } = b;
  return canonical(left) === canonical(right);
}

function canonical(value: object): string {
  const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify(entries, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}
