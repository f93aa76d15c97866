import { describe, expect, it } from 'vitest';
import { isReadOnlyTxn } from './lock-log.js';

describe('isReadOnlyTxn (etcd isTxnReadonly)', () => {
  it('is read-only when both branches only range', () => {
    expect(isReadOnlyTxn({ success: [{ type: 'range', key: '/a' }], failure: [] })).toBe(true);
    expect(isReadOnlyTxn({ success: [], failure: [] })).toBe(true);
  });

  it('writes when either branch puts or deletes, even only the branch that may not run', () => {
    expect(isReadOnlyTxn({ success: [{ type: 'put', key: '/a', value: 'v' }], failure: [{ type: 'range', key: '/a' }] })).toBe(false);
    expect(isReadOnlyTxn({ success: [{ type: 'range', key: '/a' }], failure: [{ type: 'delete', key: '/a' }] })).toBe(false);
  });
});
