// Wire conversions between etcd3's protobuf shapes and the LockLog port. etcd3 decodes every 64-bit field
// as a decimal string (proto-loader `longs: String`): these parse it straight to a bigint, never through a
// JS number, which would round above 2^53 (etcd's lease and member ids are routinely above it).
import type { IKeyValue, IResponseHeader } from 'etcd3';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { KeyValue, ResponseHeader } from '../../core/ports/lock-log.js';
import { clusterId, leaseId, memberId, revision } from '../../core/units.js';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const DECIMAL = /^-?(0|[1-9][0-9]*)$/;

function protocolError(field: string, text: unknown, rule: string): LockLogError {
  return new LockLogError('internal', `etcd sent ${field} = ${JSON.stringify(text)}, which is not ${rule}`);
}

function parseDecimal(text: unknown, field: string, min: bigint, max: bigint, rule: string): bigint {
  // BigInt('') is 0n and BigInt(' 7') is 7n: only a plain decimal literal is accepted.
  if (typeof text !== 'string' || !DECIMAL.test(text)) throw protocolError(field, text, rule);
  const value = BigInt(text);
  if (value < min || value > max) throw protocolError(field, text, rule);
  return value;
}

/** A signed 64-bit protobuf field (revisions, lease ids, TTLs) from its decimal wire text. */
export function parseInt64(text: unknown, field: string): bigint {
  return parseDecimal(text, field, INT64_MIN, INT64_MAX, 'a decimal int64');
}

/** An unsigned 64-bit protobuf field (cluster, member ids, raft term and index). */
export function parseUint64(text: unknown, field: string): bigint {
  return parseDecimal(text, field, 0n, UINT64_MAX, 'a decimal uint64');
}

/** A 64-bit count that the port carries as a number (key counts, TTL seconds): exact or refused. */
export function parseSafeInteger(text: unknown, field: string): number {
  const value = parseInt64(text, field);
  if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER)) throw protocolError(field, text, 'a count below 2^53');
  return Number(value);
}

/** A bigint for an int64 request field, as the decimal string protobufjs encodes exactly. */
export function int64ToWire(value: bigint, field: string): string {
  if (typeof value !== 'bigint' || value < INT64_MIN || value > INT64_MAX) {
    throw new LockLogError('invalid-argument', `${field} = ${String(value)} is not a 64-bit signed integer`);
  }
  return value.toString(10);
}

/** A JS number for an int64 request field (TTL seconds, limits): a non-negative safe integer. */
export function countToWire(value: number, field: string): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new LockLogError('invalid-argument', `${field} = ${value} is not a non-negative integer`);
  return String(value);
}

export function utf8ToBytes(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export function bytesToUtf8(bytes: Buffer | Uint8Array | null | undefined): string {
  return bytes === null || bytes === undefined ? '' : Buffer.from(bytes).toString('utf8');
}

/**
 * [key, rangeEnd) for a prefix, as etcd's clientv3 GetPrefixRangeEnd computes it on bytes: drop trailing
 * 0xff bytes and increment the last remaining byte. No such byte (or an empty prefix) means "every key
 * from here on", which etcd spells as range_end = "\0"; an empty prefix also starts at "\0". (UTF-8 never
 * contains 0xff, so the trailing-0xff rule is kept only to match clientv3 byte for byte.)
 */
export function prefixRange(prefix: string): { key: Buffer; rangeEnd: Buffer } {
  const key = utf8ToBytes(prefix);
  if (key.length === 0) return { key: Buffer.from([0]), rangeEnd: Buffer.from([0]) };
  for (let i = key.length - 1; i >= 0; i--) {
    const byte = key[i] ?? 0xff;
    if (byte < 0xff) {
      const rangeEnd = Buffer.from(key.subarray(0, i + 1));
      rangeEnd[i] = byte + 1;
      return { key, rangeEnd };
    }
  }
  return { key, rangeEnd: Buffer.from([0]) };
}

export function toHeader(header: IResponseHeader | null | undefined): ResponseHeader {
  if (header === null || header === undefined) throw new LockLogError('internal', 'etcd sent a response without a header');
  return {
    clusterId: clusterId(parseUint64(header.cluster_id, 'header.cluster_id')),
    memberId: memberId(parseUint64(header.member_id, 'header.member_id')),
    revision: revision(parseInt64(header.revision, 'header.revision')),
    raftTerm: parseUint64(header.raft_term, 'header.raft_term'),
  };
}

export function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: bytesToUtf8(kv.key),
    value: bytesToUtf8(kv.value),
    createRevision: revision(parseInt64(kv.create_revision, 'kv.create_revision')),
    modRevision: revision(parseInt64(kv.mod_revision, 'kv.mod_revision')),
    version: parseInt64(kv.version, 'kv.version'),
    lease: leaseId(parseInt64(kv.lease, 'kv.lease')),
  };
}

/** etcd3 leaves an unset message field as null (proto-loader `defaults: true`). */
export function optionalKeyValue(kv: IKeyValue | null | undefined): KeyValue | undefined {
  return kv === null || kv === undefined ? undefined : toKeyValue(kv);
}
