import { describe, expect, it } from 'vitest';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import { int64ToWire, parseInt64, parseSafeInteger, parseUint64, prefixRange, toHeader, toKeyValue } from './convert.js';

describe('64-bit conversions', () => {
  it('parses decimal text to exact bigints, far above 2^53', () => {
    expect(parseInt64('9007199254740993', 'f')).toBe(9007199254740993n); // 2^53 + 1: a number would round it
    expect(parseInt64('9223372036854775807', 'f')).toBe(2n ** 63n - 1n);
    expect(parseInt64('-9223372036854775808', 'f')).toBe(-(2n ** 63n));
    expect(parseInt64('-1', 'f')).toBe(-1n);
    expect(parseUint64('18446744073709551615', 'f')).toBe(2n ** 64n - 1n);
    expect(parseUint64('0', 'f')).toBe(0n);
  });

  it('refuses anything but a plain in-range decimal, as an internal error naming the field', () => {
    for (const bad of ['', ' 7', '7 ', '1.5', '1e3', '0x10', '+1', '007', 'NaN', '9223372036854775808']) {
      const error = (() => {
        try {
          parseInt64(bad, 'header.revision');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isLockLogError(error, 'internal'), JSON.stringify(bad)).toBe(true);
      expect(String(error)).toContain('header.revision');
    }
    expect(() => parseUint64('-1', 'f')).toThrow(/uint64/);
    expect(() => parseUint64('18446744073709551616', 'f')).toThrow(/uint64/);
    expect(() => parseInt64(7 as unknown as string, 'f')).toThrow(/int64/);
  });

  it('turns counts into numbers only when exact', () => {
    expect(parseSafeInteger('9007199254740991', 'count')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => parseSafeInteger('9007199254740992', 'count')).toThrow(/below 2\^53/);
  });

  it('writes bigints as exact decimal text and refuses what int64 cannot hold', () => {
    expect(int64ToWire(2n ** 62n + 1n, 'lease')).toBe('4611686018427387905');
    expect(int64ToWire(-5n, 'lease')).toBe('-5');
    expect(() => int64ToWire(2n ** 63n, 'lease')).toThrow(/lease/);
  });
});

describe('prefixRange', () => {
  const hex = (range: { key: Buffer; rangeEnd: Buffer }) => [range.key.toString('hex'), range.rangeEnd.toString('hex')];

  it('increments the last byte', () => {
    expect(hex(prefixRange('/l/a/'))).toEqual([Buffer.from('/l/a/').toString('hex'), Buffer.from('/l/a0').toString('hex')]);
  });

  it('works on UTF-8 bytes', () => {
    expect(hex(prefixRange('é'))).toEqual(['c3a9', 'c3aa']);
    expect(hex(prefixRange('a\u{10FFFF}'))).toEqual(['61f48fbfbf', '61f48fbfc0']);
  });

  it('means "every key" for an empty prefix', () => {
    expect(hex(prefixRange(''))).toEqual(['00', '00']);
  });
});

describe('toHeader and toKeyValue', () => {
  it('converts every field exactly', () => {
    const header = toHeader({ cluster_id: '18446744073709551615', member_id: '12345678901234567890', revision: '9007199254740993', raft_term: '3' });
    expect(header).toEqual({ clusterId: 2n ** 64n - 1n, memberId: 12345678901234567890n, revision: 9007199254740993n, raftTerm: 3n });
    const kv = toKeyValue({ key: Buffer.from('k✓'), value: Buffer.from('v'), create_revision: '2', mod_revision: '3', version: '2', lease: '7587869482395046403' });
    expect(kv).toEqual({ key: 'k✓', value: 'v', createRevision: 2n, modRevision: 3n, version: 2n, lease: 7587869482395046403n });
  });

  it('refuses a response without a header', () => {
    expect(() => toHeader(null)).toThrow(/without a header/);
  });
});
