import { describe, expect, it } from 'vitest';
import { leaseId } from '../units.js';
import { formatEpochRecord, formatHolderValue, parseEpochRecord, parseHolderValue, sessionKeyOf } from './records.js';

describe('log records', () => {
  it('keeps a 64-bit cluster ID exact through the epoch record', () => {
    const clusterId = (1n << 64n) - 3n; // above 2^53: a JS number would round it
    const text = formatEpochRecord({ epoch: 7, clusterId });
    expect(parseEpochRecord(text)).toEqual({ epoch: 7, clusterId });
  });

  it('keeps a 64-bit session id exact through the holder value', () => {
    const sessionId = leaseId(0x7fff_ffff_ffff_fff1n);
    expect(parseHolderValue(formatHolderValue({ identity: 'spiffe://a', sessionId, className: 'c' }))).toEqual({
      identity: 'spiffe://a',
      sessionId,
      className: 'c',
    });
    expect(sessionKeyOf(sessionId)).toBe('/s/9223372036854775793');
  });

  it.each(['', 'null', '[]', '{"epoch":-1,"clusterId":"1"}', '{"epoch":1.5,"clusterId":"1"}', '{"epoch":1,"clusterId":1}', '{"epoch":1,"clusterId":"x"}', '{'])(
    'reads the unreadable epoch record %j as absent',
    (text) => {
      expect(parseEpochRecord(text)).toBeUndefined();
    },
  );

  it.each(['{}', '{"identity":"a","session":"x","class":"c"}', '{"identity":1,"session":"1","class":"c"}'])(
    'reads the unreadable holder value %j as absent',
    (text) => {
      expect(parseHolderValue(text)).toBeUndefined();
    },
  );
});
