// ADR-03/07, issue 19: the epoch allocator on the coord cluster. Each entity cluster has one record on
// the coord cluster, `/sys/epochs/<cluster>` = {epoch, clusterId, highestRevision}: the epoch it serves,
// the cluster ID that epoch was minted for, and the highest revision of a token an arbiter has handed
// out from it. Because the record lives outside the log it protects, no restore of the entity cluster
// can bring an old epoch back:
// - an old backup carries an older /sys/epoch: below the coord's epoch, so every arbiter seals, fresh ones
//   included (epoch-regression), and the advance allocates above the coord's epoch;
// - a same-token restore keeps the cluster ID and the epoch, but its revision is below the coord's
//   highestRevision whenever a token above the snapshot was handed out (revision-regression). A token is
//   handed out only after the coord has recorded its revision (witness), so every restore that could
//   repeat a token is seen; one from a snapshot after the last token handed out repeats nothing.
// An epoch advance is a coord txn first (compare the record unchanged, put epoch E+1), then the entity
// txn; a crash between them leaves the coord ahead (every arbiter seals), and running the advance again
// allocates E+2: epochs may be skipped, never reused.
//
// The coord cluster itself is held to ADR-03's seal: its answers go through a SealGuard of their own
// (cluster ID bound at first answer, revision floor), so a running arbiter seals when the coord cluster
// is restored under it. A fresh arbiter after a restore of the coord cluster finds the coord's record
// behind the entity log's (a lower epoch, or a lower highestRevision it cannot see): the lower epoch seals
// it (the entity log is ahead of its authority), and a later advance allocates above both. What stays
// weaker: a coord cluster restored together with an entity cluster from snapshots of the same moment
// looks consistent to a fresh arbiter; restore the coord cluster with a new cluster token, or never both.
import { LockError } from '../lock-error.js';
import type { SealReason } from '../ports/arbiter-api.js';
import type { KeyValue, LockLog, ResponseHeader } from '../ports/lock-log.js';
import { EPOCH_LIMIT } from '../token.js';
import type { EpochAllocation, EpochSource } from './epoch-source.js';
import { LogGateway } from './log-gateway.js';
import type { EpochRecord } from './records.js';
import { SealGuard } from './seal-guard.js';

export const COORD_EPOCHS_PREFIX = '/sys/epochs/';
/** How many times a witness or an allocation retries a compare lost to another arbiter's write. */
const MAX_COMPARE_RETRIES = 16;

export interface CoordEpochRecord extends EpochRecord {
  /** The highest revision of a token handed out in this epoch (its witness). */
  readonly highestRevision: bigint;
}

export function coordEpochKey(cluster: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(cluster)) {
    throw new LockError('invalid-argument', `entity cluster name ${JSON.stringify(cluster)} must be 1-63 lower-case letters, digits or dashes (it names the cluster's epoch record on the coord cluster)`);
  }
  return `${COORD_EPOCHS_PREFIX}${cluster}`;
}

export function formatCoordEpochRecord(record: CoordEpochRecord): string {
  return JSON.stringify({ epoch: record.epoch, clusterId: record.clusterId.toString(10), highestRevision: record.highestRevision.toString(10) });
}

export function parseCoordEpochRecord(text: string): CoordEpochRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { epoch, clusterId, highestRevision } = value as Record<string, unknown>;
  if (typeof epoch !== 'number' || !Number.isInteger(epoch) || epoch < 1 || epoch >= EPOCH_LIMIT) return undefined;
  if (typeof clusterId !== 'string' || !/^[0-9]+$/.test(clusterId)) return undefined;
  if (typeof highestRevision !== 'string' || !/^[0-9]+$/.test(highestRevision)) return undefined;
  return { epoch, clusterId: BigInt(clusterId), highestRevision: BigInt(highestRevision) };
}

/** What the coord record says about an entity log's record, read at `header`: a seal reason, or undefined to serve. */
export function judgeAgainstCoord(coord: CoordEpochRecord | undefined, entity: EpochRecord, header: ResponseHeader): SealReason | undefined {
  if (coord === undefined) return { kind: 'no-epoch-record' }; // not registered on the coord: `lockstep init --coord-endpoints`
  if (entity.epoch < coord.epoch) return { kind: 'epoch-regression', highestSeen: coord.epoch, seen: entity.epoch };
  // The entity log is ahead of its authority: the coord cluster was restored (or the record edited).
  if (entity.epoch > coord.epoch) return { kind: 'epoch-regression', highestSeen: entity.epoch, seen: coord.epoch };
  if (entity.clusterId !== coord.clusterId || header.clusterId !== coord.clusterId) return { kind: 'cluster-id-mismatch', expected: coord.clusterId, seen: header.clusterId };
  if (header.revision < coord.highestRevision) return { kind: 'revision-regression', highestSeen: coord.highestRevision, seen: header.revision };
  return undefined;
}

export class CoordEpochSource implements EpochSource {
  readonly mode = 'coord';
  private readonly gateway: LogGateway;
  private readonly guard = new SealGuard();
  private bound = false;
  private readonly key: string;
  /** The highest revision known witnessed on the coord, per epoch: a witness at or below it writes nothing. */
  private witnessed: { readonly epoch: number; readonly revision: bigint } | undefined;
  private writing: Promise<void> | undefined;

  /** `coord` is the coord cluster's log; `cluster` the entity cluster's name in the topology. */
  constructor(coord: LockLog, cluster: string) {
    this.key = coordEpochKey(cluster);
    this.gateway = new LogGateway(coord, this.guard); // ADR-03 on the coord cluster itself
  }

  async check(record: EpochRecord, header: ResponseHeader): Promise<SealReason | undefined> {
    const { coord } = await this.read();
    if (coord !== undefined) this.noteWitnessed(coord.epoch, coord.highestRevision);
    return judgeAgainstCoord(coord, record, header);
  }

  /** Group commit: concurrent witnesses share a write; each loops until the coord covers its revision. */
  async witness(epoch: number, revision: bigint): Promise<void> {
    for (let attempt = 0; attempt < MAX_COMPARE_RETRIES; attempt += 1) {
      if (this.covers(epoch, revision)) return;
      if (this.writing !== undefined) {
        await this.writing.catch(() => undefined);
        continue;
      }
      this.writing = this.raiseTo(epoch, revision).finally(() => {
        this.writing = undefined;
      });
      await this.writing;
    }
    if (!this.covers(epoch, revision)) throw new LockError('unavailable', `the coord cluster did not record revision ${revision} of epoch ${epoch} after ${MAX_COMPARE_RETRIES} tries; the grant is not handed out, retry (ADR-03)`);
  }

  async allocate(allocation: EpochAllocation): Promise<number> {
    for (let attempt = 0; attempt < MAX_COMPARE_RETRIES; attempt += 1) {
      const { coord, kv } = await this.read();
      const epoch = Math.max(allocation.atLeast, (coord?.epoch ?? 0) + 1);
      if (epoch >= EPOCH_LIMIT) throw new LockError('invalid-argument', `epoch ${epoch} would reach 2^15 (ADR-02); tokens cannot grow further`);
      const record: CoordEpochRecord = { epoch, clusterId: allocation.clusterId, highestRevision: allocation.revision };
      const written = await this.gateway.txn({ compare: [{ key: this.key, target: 'mod', op: '=', value: kv?.modRevision ?? 0n }], success: [{ type: 'put', key: this.key, value: formatCoordEpochRecord(record) }], failure: [] });
      if (written.succeeded) {
        this.witnessed = { epoch, revision: allocation.revision };
        return epoch;
      }
    }
    throw new LockError('stale', `the coord record ${this.key} kept changing during the advance (another advance ran); check status and retry`);
  }

  private covers(epoch: number, revision: bigint): boolean {
    const known = this.witnessed;
    // A token of an older epoch than the coord's was minted before an advance deleted its hold: no later
    // token can be at or below it, so it needs no witness.
    return known !== undefined && (known.epoch > epoch || (known.epoch === epoch && known.revision >= revision));
  }

  private noteWitnessed(epoch: number, revision: bigint): void {
    if (this.witnessed === undefined || epoch > this.witnessed.epoch || (epoch === this.witnessed.epoch && revision > this.witnessed.revision)) this.witnessed = { epoch, revision };
  }

  private async raiseTo(epoch: number, revision: bigint): Promise<void> {
    const { coord, kv } = await this.read();
    if (coord === undefined || kv === undefined) throw new LockError('sealed', `the coord cluster has no record ${this.key}; register the entity cluster with lockstep init --coord-endpoints (ADR-03)`, { seal: { kind: 'no-epoch-record' } });
    this.noteWitnessed(coord.epoch, coord.highestRevision);
    if (coord.epoch !== epoch || coord.highestRevision >= revision) return;
    const raised: CoordEpochRecord = { ...coord, highestRevision: revision };
    const written = await this.gateway.txn({ compare: [{ key: this.key, target: 'mod', op: '=', value: kv.modRevision }], success: [{ type: 'put', key: this.key, value: formatCoordEpochRecord(raised) }], failure: [] });
    if (written.succeeded) this.noteWitnessed(epoch, revision);
  }

  private async read(): Promise<{ readonly coord: CoordEpochRecord | undefined; readonly kv: KeyValue | undefined }> {
    const response = await this.gateway.range({ key: this.key });
    if (!this.bound) {
      this.guard.bindCluster(response.header.clusterId); // the coord cluster this arbiter started against
      this.bound = true;
    }
    const kv = response.kvs[0];
    if (kv === undefined) return { coord: undefined, kv };
    const coord = parseCoordEpochRecord(kv.value);
    if (coord === undefined) throw new LockError('sealed', `the coord record ${this.key} is unreadable; refusing to serve against it (ADR-03)`, { seal: { kind: 'no-epoch-record' } });
    return { coord, kv };
  }
}

/** `lockstep init --coord-endpoints`: registers a new entity cluster's epoch on the coord cluster (refused if it has one). */
export async function registerOnCoord(coord: LockLog, cluster: string, record: CoordEpochRecord): Promise<void> {
  const key = coordEpochKey(cluster);
  const written = await coord.txn({ compare: [{ key, target: 'create', op: '=', value: 0n }], success: [{ type: 'put', key, value: formatCoordEpochRecord(record) }], failure: [] });
  if (!written.succeeded) throw new LockError('invalid-argument', `the coord cluster already holds ${key}: cluster ${cluster} is registered; a restored or replaced cluster is reopened by an epoch advance with two approvers (ADR-03)`);
}
