import { describe, expect, it } from 'vitest';
import { memberId } from '../../core/units.js';
import { IdGenerator } from './id-generator.js';

describe('IdGenerator (pkg/idutil/id.go)', () => {
  it('puts the member id in the top 2 bytes and the start ms above an 8-bit counter', () => {
    const ids = new IdGenerator(memberId(0x1234_5678_9abc_def0n), 1_700_000_000_123);
    const first = ids.next();
    expect(first >> 48n).toBe(0xdef0n);
    expect((first >> 8n) & ((1n << 40n) - 1n)).toBe(1_700_000_000_123n & ((1n << 40n) - 1n));
    expect(first & 0xffn).toBe(1n);
    expect(ids.next()).toBe(first + 1n);
  });

  it('gives positive, distinct lease ids even with the member id top bit set', () => {
    const ids = new IdGenerator(memberId(0xffffn), 42);
    const leases = Array.from({ length: 300 }, () => ids.nextLeaseId());
    expect(new Set(leases).size).toBe(300);
    expect(leases.every((id) => id > 0n && id < 1n << 63n)).toBe(true);
  });
});
