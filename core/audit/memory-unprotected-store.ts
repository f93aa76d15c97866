// An UnprotectedStore in memory (ADR-04): the simulator's audit store of unprotected grants, and the
// tests'. It keeps the port's promise, a record once by its id, and counts what it was offered, so a
// checker can tell a shipment repeated after a crash (offered twice, stored once) from a record lost.
import type { UnprotectedRecord, UnprotectedStore } from '../ports/spool.js';

export class MemoryUnprotectedStore implements UnprotectedStore {
  private readonly byId = new Map<string, UnprotectedRecord>();
  private offeredCount = 0;
  private shipmentCount = 0;

  shipUnprotected(records: readonly UnprotectedRecord[]): Promise<void> {
    for (const record of records) if (!this.byId.has(record.id)) this.byId.set(record.id, record);
    this.offeredCount += records.length;
    this.shipmentCount += 1;
    return Promise.resolve();
  }

  unprotected(sinceMs: number): Promise<readonly UnprotectedRecord[]> {
    return Promise.resolve(this.records.filter((r) => r.atMs >= sinceMs));
  }

  /** Every stored record, ordered by atMs then id (as `unprotected` answers). */
  get records(): readonly UnprotectedRecord[] {
    return [...this.byId.values()].sort((a, b) => a.atMs - b.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Records offered in all shipments, repeats included. */
  get offered(): number {
    return this.offeredCount;
  }

  get shipments(): number {
    return this.shipmentCount;
  }
}
