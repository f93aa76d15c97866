import { CompareResult, CompareTarget, type ITxnResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import type { TxnRequest } from '../../core/ports/lock-log.js';
import { leaseId } from '../../core/units.js';
import { decodeTxn, encodeCompare, encodeOp, encodeRange, isReadOnlyTxn } from './kv-codec.js';

const header = { cluster_id: '1', member_id: '2', revision: '9', raft_term: '1' };
const kv = (key: string, value: string) => ({ key: Buffer.from(key), value: Buffer.from(value), create_revision: '3', mod_revision: '9', version: '2', lease: '0' });

describe('encoding', () => {
  it('puts each compare target in its own field, 64-bit values as exact text', () => {
    expect(encodeCompare({ key: 'k', target: 'create', op: '=', value: 0n })).toEqual({ key: Buffer.from('k'), result: CompareResult.Equal, target: CompareTarget.Create, create_revision: '0' });
    expect(encodeCompare({ key: 'k', target: 'lease', op: '!=', value: 2n ** 62n + 3n })).toMatchObject({ target: CompareTarget.Lease, result: CompareResult.NotEqual, lease: '4611686018427387907' });
    expect(encodeCompare({ key: 'k', target: 'value', op: '<', value: 'v' })).toMatchObject({ target: CompareTarget.Value, result: CompareResult.Less, value: Buffer.from('v') });
    expect(encodeCompare({ key: 'k', target: 'mod', op: '>', value: 5n })).toMatchObject({ target: CompareTarget.Mod, result: CompareResult.Greater, mod_revision: '5' });
    expect(encodeCompare({ key: 'k', target: 'version', op: '=', value: 1n })).toMatchObject({ target: CompareTarget.Version, version: '1' });
  });

  it('encodes ops with prefix ranges, leases and prevKv only when asked', () => {
    expect(encodeOp({ type: 'put', key: 'k', value: 'v' })).toEqual({ request_put: { key: Buffer.from('k'), value: Buffer.from('v') } });
    expect(encodeOp({ type: 'put', key: 'k', value: 'v', lease: leaseId(7n), prevKv: true })).toEqual({ request_put: { key: Buffer.from('k'), value: Buffer.from('v'), lease: '7', prev_kv: true } });
    expect(encodeOp({ type: 'delete', key: 'p/', prefix: true })).toEqual({ request_delete_range: { key: Buffer.from('p/'), range_end: Buffer.from('p0') } });
    expect(encodeOp({ type: 'range', key: 'p/', prefix: true, limit: 2 })).toEqual({ request_range: { key: Buffer.from('p/'), range_end: Buffer.from('p0'), limit: '2' } });
    expect(encodeRange({ key: 'k', revision: 2n ** 60n as never, serializable: true })).toEqual({ key: Buffer.from('k'), revision: '1152921504606846976', serializable: true });
  });

  it('refuses a negative or fractional limit', () => {
    expect(() => encodeRange({ key: 'k', limit: -1 })).toThrow(/limit/);
    expect(() => encodeRange({ key: 'k', limit: 1.5 })).toThrow(/limit/);
  });

  it('knows a txn that only reads', () => {
    expect(isReadOnlyTxn({ compare: [], success: [{ type: 'range', key: 'k' }], failure: [] })).toBe(true);
    expect(isReadOnlyTxn({ compare: [], success: [], failure: [{ type: 'delete', key: 'k' }] })).toBe(false);
  });
});

describe('decodeTxn', () => {
  const request: TxnRequest = {
    compare: [],
    success: [{ type: 'range', key: 'k' }, { type: 'put', key: 'k', value: 'v', prevKv: true }, { type: 'delete', key: 'k' }],
    failure: [],
  };

  it('decodes each op of the branch taken', () => {
    const wire = {
      header,
      succeeded: true,
      responses: [
        { response: 'response_range', response_range: { header, kvs: [kv('k', 'v')], count: '1', more: false } },
        { response: 'response_put', response_put: { header, prev_kv: kv('k', 'old') } },
        { response: 'response_delete_range', response_delete_range: { header, deleted: '1', prev_kvs: [] } },
      ],
    } as unknown as ITxnResponse;
    const decoded = decodeTxn(wire, request);
    expect(decoded.header.revision).toBe(9n);
    expect(decoded.responses.map((r) => r.type)).toEqual(['range', 'put', 'delete']);
    expect(decoded.responses[1]).toEqual({ type: 'put', prevKv: { key: 'k', value: 'old', createRevision: 3n, modRevision: 9n, version: 2n, lease: 0n } });
    expect(decoded.responses[2]).toEqual({ type: 'delete', deleted: 1, prevKvs: [] });
  });

  it('refuses an answer whose op count does not match the branch', () => {
    const wire = { header, succeeded: true, responses: [] } as unknown as ITxnResponse;
    let error: unknown;
    try {
      decodeTxn(wire, request);
    } catch (e) {
      error = e;
    }
    expect(isLockLogError(error, 'internal')).toBe(true);
  });

  it('calls an answer it cannot read, to a txn that writes, indeterminate: etcd applied it (issue 11)', () => {
    const unreadable = { header, succeeded: true, responses: [] } as unknown as ITxnResponse;
    const outcomeOf = (txn: TxnRequest): string | undefined => {
      try {
        decodeTxn(unreadable, txn);
      } catch (error) {
        return isLockLogError(error) ? `${error.code} ${error.outcome}` : String(error);
      }
      return undefined;
    };
    // Before the fix: 'internal failed', which the arbiter reports as "nothing happened" after a grant committed.
    expect(outcomeOf(request)).toBe('internal indeterminate');
    const noHeader = { succeeded: true, responses: [{ response: 'response_range', response_range: { header, kvs: [], count: '0', more: false } }] } as unknown as ITxnResponse;
    const grant: TxnRequest = { compare: [], success: [{ type: 'put', key: 'k', value: 'v' }], failure: [{ type: 'range', key: 'k' }] };
    expect(() => decodeTxn(noHeader, grant)).toThrow(expect.objectContaining({ code: 'internal', outcome: 'indeterminate' }));
    // Its negative control: a txn that only reads changed nothing, whatever its answer says.
    expect(outcomeOf({ compare: [], success: [{ type: 'range', key: 'k' }, { type: 'range', key: 'j' }], failure: [] })).toBe('internal failed');
  });
});
