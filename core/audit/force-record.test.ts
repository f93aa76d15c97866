import { describe, expect, it } from 'vitest';
import { formatForceRecord } from '../arbiter/records.js';
import { parseForceRecord } from './force-record.js';

const RECORD = { key: 'payments/ledger-7', token: '281474976710661', holder: 'spiffe://a', requester: 'ops/alice', approver: 'ops/bob', reason: 'wedged since 03:00', enforcement: 'fenced' } as const;

describe('parseForceRecord', () => {
  it('reads what core/arbiter/admin.ts writes (records.ts formatForceRecord)', () => {
    expect(parseForceRecord(formatForceRecord(RECORD))).toEqual(RECORD);
  });

  it('refuses a record it cannot read whole, rather than guessing', () => {
    for (const text of ['', 'null', '[]', '{"key":"k"}', JSON.stringify({ ...RECORD, enforcement: 'maybe' }), JSON.stringify({ ...RECORD, reason: 7 })]) {
      expect(parseForceRecord(text)).toBeUndefined();
    }
  });
});
