// The KV half of the port on etcd's wire: txn compares and ops, range. Keys and values are UTF-8.
import { CompareResult, CompareTarget, type ICompare, type IRangeRequest, type IRangeResponse, type IRequestOp, type IResponseOp, type ITxnRequest, type ITxnResponse } from 'etcd3';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { Compare, CompareOp, RangeRequest, RangeResponse, RequestOp, ResponseOp, TxnRequest, TxnResponse } from '../../core/ports/lock-log.js';
import { countToWire, int64ToWire, optionalKeyValue, parseSafeInteger, prefixRange, toHeader, toKeyValue, utf8ToBytes } from './convert.js';

const COMPARE_RESULT: Record<CompareOp, CompareResult> = {
  '=': CompareResult.Equal,
  '!=': CompareResult.NotEqual,
  '<': CompareResult.Less,
  '>': CompareResult.Greater,
};

function keyAndEnd(key: string, prefix: boolean | undefined): { key: Buffer; range_end?: Buffer } {
  if (prefix !== true) return { key: utf8ToBytes(key) };
  const range = prefixRange(key);
  return { key: range.key, range_end: range.rangeEnd };
}

export function encodeCompare(compare: Compare): ICompare {
  const base = { key: utf8ToBytes(compare.key), result: COMPARE_RESULT[compare.op] };
  switch (compare.target) {
    case 'value':
      return { ...base, target: CompareTarget.Value, value: utf8ToBytes(compare.value) };
    case 'create':
      return { ...base, target: CompareTarget.Create, create_revision: int64ToWire(compare.value, 'compare create') };
    case 'mod':
      return { ...base, target: CompareTarget.Mod, mod_revision: int64ToWire(compare.value, 'compare mod') };
    case 'version':
      return { ...base, target: CompareTarget.Version, version: int64ToWire(compare.value, 'compare version') };
    case 'lease':
      return { ...base, target: CompareTarget.Lease, lease: int64ToWire(compare.value, 'compare lease') };
  }
}

function encodeRangeFields(key: string, prefix: boolean | undefined, limit: number | undefined): IRangeRequest {
  const request: IRangeRequest = keyAndEnd(key, prefix);
  if (limit !== undefined) request.limit = countToWire(limit, 'range limit');
  return request;
}

export function encodeOp(op: RequestOp): IRequestOp {
  switch (op.type) {
    case 'range':
      return { request_range: encodeRangeFields(op.key, op.prefix, op.limit) };
    case 'put':
      return {
        request_put: {
          key: utf8ToBytes(op.key),
          value: utf8ToBytes(op.value),
          ...(op.lease !== undefined ? { lease: int64ToWire(op.lease, 'put lease') } : {}),
          ...(op.prevKv === true ? { prev_kv: true } : {}),
        },
      };
    case 'delete':
      return { request_delete_range: { ...keyAndEnd(op.key, op.prefix), ...(op.prevKv === true ? { prev_kv: true } : {}) } };
  }
}

export function encodeTxn(request: TxnRequest): ITxnRequest {
  return { compare: request.compare.map(encodeCompare), success: request.success.map(encodeOp), failure: request.failure.map(encodeOp) };
}

/** A txn whose ops, on both branches, only read: a failure of it changed nothing. */
export function isReadOnlyTxn(request: TxnRequest): boolean {
  return [...request.success, ...request.failure].every((op) => op.type === 'range');
}

function decodeRangeBody(response: IRangeResponse): { kvs: RangeResponse['kvs']; count: number; more: boolean } {
  return { kvs: (response.kvs ?? []).map(toKeyValue), count: parseSafeInteger(response.count, 'range count'), more: response.more === true };
}

function decodeOp(response: IResponseOp, asked: RequestOp | undefined): ResponseOp {
  if (response.response_range !== null && response.response_range !== undefined) return { type: 'range', ...decodeRangeBody(response.response_range) };
  if (response.response_put !== null && response.response_put !== undefined) {
    const prevKv = optionalKeyValue(response.response_put.prev_kv);
    return prevKv === undefined ? { type: 'put' } : { type: 'put', prevKv };
  }
  if (response.response_delete_range !== null && response.response_delete_range !== undefined) {
    const deleted = response.response_delete_range;
    return { type: 'delete', deleted: parseSafeInteger(deleted.deleted, 'deleted'), prevKvs: (deleted.prev_kvs ?? []).map(toKeyValue) };
  }
  throw new LockLogError('internal', `etcd answered a txn ${asked?.type ?? 'op'} with an empty response op`);
}

/**
 * The port's answer to a txn. An answer that cannot be read still came from etcd, which applied one of
 * the txn's branches: for a txn that writes, "internal" with outcome failed would tell the arbiter nothing
 * happened after a grant committed, so it is indeterminate (issue 11); one that only reads changed nothing.
 */
export function decodeTxn(response: ITxnResponse, request: TxnRequest): TxnResponse {
  try {
    const succeeded = response.succeeded === true;
    const asked = succeeded ? request.success : request.failure;
    const ops = response.responses ?? [];
    if (ops.length !== asked.length) throw new LockLogError('internal', `etcd answered ${ops.length} ops for a txn branch of ${asked.length}`);
    return { header: toHeader(response.header), succeeded, responses: ops.map((op, i) => decodeOp(op, asked[i])) };
  } catch (error) {
    if (!(error instanceof LockLogError) || isReadOnlyTxn(request)) throw error;
    throw new LockLogError(error.code, `${error.message.slice(error.code.length + 2)}; etcd applied the txn, so what it wrote is unknown`, { outcome: 'indeterminate', cause: error });
  }
}

export function encodeRange(request: RangeRequest): IRangeRequest {
  const wire = encodeRangeFields(request.key, request.prefix, request.limit);
  if (request.revision !== undefined) wire.revision = int64ToWire(request.revision, 'range revision');
  if (request.serializable === true) wire.serializable = true;
  return wire;
}

export function decodeRange(response: IRangeResponse): RangeResponse {
  return { header: toHeader(response.header), ...decodeRangeBody(response) };
}
