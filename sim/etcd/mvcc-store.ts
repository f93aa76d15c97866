// One member's MVCC key-value store: revisions, ranges at a revision, write txns, compaction
// (design/etcd-behaviour.md 4.1; mvcc/kvstore.go, mvcc/kvstore_txn.go). Pure and synchronous: the member
// drives it from its apply loop. Revisions are JS numbers inside (exact up to 2^53, far beyond any run)
// and branded bigints at the port boundary.
import type { KeyValue } from '../../core/ports/lock-log.js';
import { NO_LEASE, revision, type LeaseId, type Revision } from '../../core/units.js';
import { KeyIndex, type KeyRange } from './key-index.js';
import { failWith, succeed, type Outcome } from './outcome.js';
import { RevisionLog, type CommittedWrite, type StoredEvent } from './revision-log.js';
import { StateHash } from './state-hash.js';

/** Where the store reports lease attachments, as etcd's store calls its lessor (kvstore_txn.go put/delete). */
export interface LeaseBinder {
  attach(id: LeaseId, key: string): void;
  detach(id: LeaseId, key: string): void;
}

export interface RangeOptions extends KeyRange {
  /** At most this many kvs; 0 or absent = no limit (etcdserver/apply.go Range fetches limit+1 for `more`). */
  readonly limit?: number;
  /** Read at this revision; 0 or absent = current. */
  readonly revision?: Revision;
  readonly countOnly?: boolean;
}

/** etcd's RangeResponse without the header. */
export interface RangeResult {
  readonly kvs: readonly KeyValue[];
  readonly count: number;
  readonly more: boolean;
}

export type CommitObserver = (write: CommittedWrite) => void;

/** A fresh store is at revision 1 with nothing compacted (kvstore.go NewStore l.131-132). */
const FRESH_REVISION = 1;
const NOT_COMPACTED = -1;

export class MvccStore {
  private rev = FRESH_REVISION;
  private compactMainRev = NOT_COMPACTED;
  private index = new KeyIndex();
  private log = new RevisionLog(FRESH_REVISION + 1);
  private history = new StateHash();
  private observer: CommitObserver | undefined;
  private openTxn: WriteTxn | undefined;

  constructor(private readonly leases: LeaseBinder) {}

  /**
   * The store as a backend snapshot holds it (issue 16: a member snapshots its state so its raft log and
   * WAL can be compacted), bound to `leases`: revisions, compaction point, key versions, retained history
   * and the history hash. No observer and no open txn.
   */
  copy(leases: LeaseBinder): MvccStore {
    if (this.openTxn !== undefined) throw new Error('mvcc: copy with a write txn open');
    const copy = new MvccStore(leases);
    copy.rev = this.rev;
    copy.compactMainRev = this.compactMainRev;
    copy.index = this.index.copy();
    copy.log = this.log.copy();
    copy.history = this.history.copy();
    return copy;
  }

  /** The store revision: the last revision that changed something. */
  get currentRev(): number {
    return this.rev;
  }

  /** The last compaction revision, -1 before the first compaction. */
  get compactRev(): number {
    return this.compactMainRev;
  }

  currentRevision(): Revision {
    return revision(BigInt(this.rev));
  }

  /** The watch hub subscribes here; etcd's watchableStoreTxnWrite.End calls notify (watchable_store_txn.go). */
  observeCommits(observer: CommitObserver): void {
    this.observer = observer;
  }

  /** A read txn at the current revision (kvstore_txn.go storeTxnRead.Range). */
  range(options: RangeOptions): Outcome<RangeResult> {
    return this.rangeAt(options, this.rev);
  }

  /** Opens the one write txn; etcd serialises writes on the apply loop, so a second open is a bug. */
  write(): WriteTxn {
    if (this.openTxn !== undefined) throw new Error('mvcc: a write txn is already open');
    this.openTxn = new WriteTxn(this, this.rev);
    return this.openTxn;
  }

  /**
   * Compacts history below `target` (kvstore.go updateCompactRev l.246-275): at or below the previous
   * compaction is ErrCompacted, above the current revision ErrFutureRev. Memory is freed at once; etcd
   * frees the backend asynchronously in batches, which no reader can observe apart from timing.
   */
  compact(target: Revision): Outcome<void> {
    const rev = Number(target);
    if (rev <= this.compactMainRev) {
      return failWith('compacted', `revision ${rev} is at or below the compaction ${this.compactMainRev}`, revision(BigInt(this.compactMainRev)));
    }
    if (rev > this.rev) return failWith('future-revision', `revision ${rev} is above the current ${this.rev}`);
    this.compactMainRev = rev;
    this.index.compact(rev);
    this.log.compact(rev);
    return succeed(undefined);
  }

  /**
   * What `etcdutl snapshot restore --bump-revision N --mark-compacted` does to a restored store (3.5
   * etcdutl/snapshot/v3_snapshot.go modifyLatestRevision): the latest revision moves up by `amount` (an
   * empty record at the new revision) and that revision becomes the compaction point, so the next write
   * gets old + amount + 1 and nothing below the new revision can be read or watched. Only a restore
   * calls it, before the store serves anything.
   */
  bumpRevision(amount: number): void {
    if (!(Number.isInteger(amount) && amount > 0)) throw new RangeError(`mvcc: bumpRevision needs a positive whole amount, got ${amount}`);
    this.rev += amount;
    this.compactMainRev = this.rev;
    this.index.compact(this.rev);
    // Nothing is stored at the bumped revision, so the history resumes at the one after it.
    this.log.compact(this.rev + 1);
    this.history.update(`bump ${amount}`);
  }

  /** The key's newest value, if it exists. */
  latest(key: string): KeyValue | undefined {
    return this.index.get(key, this.rev);
  }

  /** The changes made at `rev`, while not compacted; the watch hub catches up from these. */
  writeAt(rev: number): CommittedWrite | undefined {
    return this.log.at(rev);
  }

  /** Every live kv, in key order. */
  live(): Generator<KeyValue, void, undefined> {
    return this.index.live();
  }

  /** A running hash of every write ever committed, for state digests. */
  historyHash(): string {
    return this.history.hex();
  }

  /** What the store holds, to check that compaction frees memory. */
  memoryStats(): { readonly indexedKeys: number; readonly keyVersions: number; readonly retainedRevisions: number } {
    return { indexedKeys: this.index.keyCount, keyVersions: this.index.versionCount, retainedRevisions: this.log.retainedRevisions };
  }

  /** kvstore_txn.go rangeKeys l.117-127: future above `readRev`, compacted strictly below compactMainRev. */
  rangeAt(options: RangeOptions, readRev: number): Outcome<RangeResult> {
    const asked = options.revision === undefined ? 0 : Number(options.revision);
    if (asked > readRev) return failWith('future-revision', `revision ${asked} is above the current ${readRev}`);
    const at = asked <= 0 ? readRev : asked;
    if (at < this.compactMainRev) {
      return failWith('compacted', `revision ${at} was compacted (compaction at ${this.compactMainRev})`, revision(BigInt(this.compactMainRev)));
    }
    const found = this.index.visible(options, at);
    if (options.countOnly === true) return succeed({ kvs: [], count: found.length, more: false });
    const limit = options.limit ?? 0;
    const more = limit > 0 && found.length > limit;
    return succeed({ kvs: more ? found.slice(0, limit) : found, count: found.length, more });
  }

  /** Called by WriteTxn: one version in the index, with etcd's create/version rules and lease moves. */
  recordPut(key: string, value: string, lease: LeaseId, writeRev: number): KeyValue {
    const previous = this.index.get(key, writeRev);
    const kv: KeyValue = {
      key,
      value,
      createRevision: previous?.createRevision ?? revision(BigInt(writeRev)),
      modRevision: revision(BigInt(writeRev)),
      version: (previous?.version ?? 0n) + 1n,
      lease,
    };
    this.index.record(key, writeRev, kv);
    // The old lease lets go of the key even when the new put names the same lease (kvstore_txn.go put).
    if (previous !== undefined && previous.lease !== NO_LEASE) this.leases.detach(previous.lease, key);
    if (lease !== NO_LEASE) this.leases.attach(lease, key);
    return kv;
  }

  /** Called by WriteTxn: a tombstone; the event's kv carries only the key and the deleting revision. */
  recordDelete(previous: KeyValue, writeRev: number): KeyValue {
    this.index.record(previous.key, writeRev, undefined);
    if (previous.lease !== NO_LEASE) this.leases.detach(previous.lease, previous.key);
    return tombstoneOf(previous.key, writeRev);
  }

  /** Called by WriteTxn.end (kvstore_txn.go End l.102-115): one revision, only if something changed. */
  commit(txn: WriteTxn, events: readonly StoredEvent[]): CommittedWrite | undefined {
    if (this.openTxn !== txn) throw new Error('mvcc: ending a txn that is not open');
    this.openTxn = undefined;
    if (events.length === 0) return undefined;
    this.rev++;
    // A copy of exactly its length: the txn's array grew by push, and its spare capacity (~120 bytes) would
    // stay with each of the ~20,000 writes a member's minute of history retains (issue 16).
    const write: CommittedWrite = { revision: this.rev, events: events.slice() };
    this.log.append(write);
    this.history.update(String(this.rev));
    // `${type}|${key}|${value}|${lease}` folded piece by piece: the same hash, no string built per event.
    const history = this.history;
    for (const event of events) history.fold(event.type).fold('|').fold(event.kv.key).fold('|').fold(event.kv.value).fold('|').fold(String(event.kv.lease)).separate();
    this.observer?.(write);
    return write;
  }
}

/**
 * One write txn (kvstore_txn.go storeTxnWrite): every change gets revision beginRev+1; reads inside the
 * txn see its own earlier changes (Range reads at beginRev+1 once something changed).
 */
export class WriteTxn {
  private readonly changes: StoredEvent[] = [];

  constructor(
    private readonly store: MvccStore,
    private readonly beginRev: number,
  ) {}

  /** The revision this txn's reads see. */
  get readRev(): number {
    return this.changes.length > 0 ? this.beginRev + 1 : this.beginRev;
  }

  range(options: RangeOptions): Outcome<RangeResult> {
    return this.store.rangeAt(options, this.readRev);
  }

  put(key: string, value: string, lease: LeaseId = NO_LEASE): void {
    this.changes.push({ type: 'put', kv: this.store.recordPut(key, value, lease, this.beginRev + 1) });
  }

  /** Deletes every key in the range that exists now; returns how many (kvstore_txn.go deleteRange). */
  deleteRange(range: KeyRange): number {
    const doomed = this.store.rangeAt(range.prefix === true ? { key: range.key, prefix: true } : { key: range.key }, this.readRev);
    if (!doomed.ok) throw doomed.error;
    for (const kv of doomed.value.kvs) {
      this.changes.push({ type: 'delete', kv: this.store.recordDelete(kv, this.beginRev + 1) });
    }
    return doomed.value.kvs.length;
  }

  /** Commits: the new revision and its events, or undefined when nothing changed (no revision bump). */
  end(): CommittedWrite | undefined {
    return this.store.commit(this, this.changes);
  }
}

function tombstoneOf(key: string, writeRev: number): KeyValue {
  return { key, value: '', createRevision: revision(0n), modRevision: revision(BigInt(writeRev)), version: 0n, lease: NO_LEASE };
}
