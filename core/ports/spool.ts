// The spool of unprotected grants (ADR-04): when no etcd majority answers, an arbiter grants an
// efficiency class that declared `onQuorumLoss: open` from its own memory, with token 0, and writes each
// such grant and its end here before it answers. The spool is the only record of them until the quorum is
// back, when the arbiter ships it to the audit store (UnprotectedStore) marked `unprotected` and truncates
// it. Real: an append-only file, fsync per record, a checksum per line (src/). Simulated: a file on the
// simulated disk, whose unsynced tail a crash loses (sim/).

/** One line of the spool: a grant made from memory during an outage, or its end. */
export interface UnprotectedRecord {
  /**
   * Unique across arbiters and restarts (`<arbiterId>/<incarnation>/<seq>`): the audit store keeps a record
   * once by this id, so a shipment repeated after a crash mid-ship stores nothing twice.
   */
  readonly id: string;
  readonly kind: 'grant' | 'end';
  /** The id of the grant record this belongs to; for a grant, its own id. */
  readonly grantId: string;
  /** Which arbiter granted from its memory: two arbiters granting one key is the overlap the class accepted. */
  readonly arbiterId: string;
  /** `namespace/path`. */
  readonly key: string;
  readonly namespace: string;
  readonly className: string;
  readonly identity: string;
  readonly instance: string;
  /** Wall time (Unix ms, WallClock) of the grant or its end: the reconciliation list is read by people. */
  readonly atMs: number;
  /** For an end: released by the holder, expired, or ended because the quorum came back (a fence, ADR-04). */
  readonly endReason?: 'release' | 'expiry' | 'recovery';
}

export interface Spool {
  /** Appends one record; resolves once it is durable (fsynced, or on the simulated disk's synced part). */
  append(record: UnprotectedRecord): Promise<void>;
  /** Every intact record, oldest first. A torn or corrupt tail is dropped, never misread. */
  read(): Promise<readonly UnprotectedRecord[]>;
  /** Removes the records up to and including `throughId` (shipped), keeping any appended after it. */
  truncate(throughId: string): Promise<void>;
}

/** Where shipped records go: the audit store's `unprotected` events (ADR-21, ADR-04). */
export interface UnprotectedStore {
  /** Stores the records; one whose id is already stored is skipped, so shipping is idempotent. */
  shipUnprotected(records: readonly UnprotectedRecord[]): Promise<void>;
  /** Every stored unprotected record with `atMs >= sinceMs`, ordered by atMs then id. */
  unprotected(sinceMs: number): Promise<readonly UnprotectedRecord[]>;
}
