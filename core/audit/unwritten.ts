// What the tailer has read and not yet written (tailer.ts): the events and gaps since its last flush, and
// the checkpoint the store last took. A flush hands the store all of it with the new checkpoint in one
// write, one flush at a time; a failed write puts everything back, before what was read meanwhile.
import type { Revision } from '../units.js';
import type { AuditCheckpoint, AuditGap, AuditRecord } from './events.js';
import type { AuditStore } from './store.js';

export interface Flushed {
  readonly records: number;
  readonly gaps: number;
  readonly checkpoint: AuditCheckpoint;
}

export class Unwritten {
  private records: AuditRecord[] = [];
  private gaps: AuditGap[] = [];
  private flushing: Promise<unknown> = Promise.resolve();
  /** The checkpoint revision the store holds (as far as this run knows); undefined before the first. */
  checkpointed: Revision | undefined;

  constructor(private readonly store: AuditStore) {}

  get size(): number {
    return this.records.length;
  }

  addRecords(records: readonly AuditRecord[]): void {
    this.records.push(...records);
  }

  addGap(gap: AuditGap): void {
    this.gaps.push(gap);
  }

  /**
   * Writes everything with the checkpoint `next()` gives when the flush's turn comes (undefined: nothing
   * may be written now); resolves with what was written, or undefined when there was nothing new.
   */
  flush(next: () => AuditCheckpoint | undefined): Promise<Flushed | undefined> {
    const done = this.flushing.then(() => this.flushNow(next()));
    this.flushing = done.catch(() => undefined);
    return done;
  }

  private async flushNow(checkpoint: AuditCheckpoint | undefined): Promise<Flushed | undefined> {
    if (checkpoint === undefined) return undefined;
    if (this.records.length === 0 && this.gaps.length === 0 && this.checkpointed === checkpoint.revision) return undefined;
    const records = this.records;
    const gaps = this.gaps;
    this.records = [];
    this.gaps = [];
    try {
      await this.store.write({ records, gaps, checkpoint });
    } catch (error) {
      this.records = [...records, ...this.records];
      this.gaps = [...gaps, ...this.gaps];
      throw error;
    }
    this.checkpointed = checkpoint.revision;
    return { records: records.length, gaps: gaps.length, checkpoint };
  }
}
