import { describe, expect, it } from 'vitest';
import { leaseId } from '../units.js';
import { formatEpochRecord, formatHolderValue, formatSessionRecord, parseEpochRecord, parseHolderValue, parseSessionRecord, sessionKeyOf } from './records.js';

describe('log records', () => {
  it('keeps a 64-bit cluster ID exact through the epoch record', () => {
    const clusterId = (1n << 64n) - 3n; // above 2^53: a JS number would round it
    const text = formatEpochRecord({ epoch: 7, clusterId });
    expect(parseEpochRecord(text)).toEqual({ epoch: 7, clusterId });
  });

  it('keeps a 64-bit session id exact through the holder value', () => {
    const sessionId = leaseId(0x7fff_ffff_ffff_fff1n);
    expect(parseHolderValue(formatHolderValue({ identity: 'spiffe://a', instance: '', sessionId, className: 'c' }))).toEqual({
      identity: 'spiffe://a',
      instance: '',
      sessionId,
      className: 'c',
    });
    expect(sessionKeyOf(sessionId)).toBe('/s/9223372036854775793');
  });

  it('reads a holder value and a session record written before instances (issue 29) as the unnamed instance', () => {
    expect(parseHolderValue('{"identity":"spiffe://a","session":"7","class":"c"}')).toEqual({ identity: 'spiffe://a', instance: '', sessionId: leaseId(7n), className: 'c' });
    expect(parseSessionRecord('{"identity":"spiffe://a","ttlSeconds":15}')).toEqual({ identity: 'spiffe://a', instance: '', ttlSeconds: 15 });
  });

  it('keeps a named instance through the holder value and the session record, and writes none when unnamed', () => {
    const sessionId = leaseId(9n);
    expect(parseHolderValue(formatHolderValue({ identity: 'spiffe://a', instance: 'pod-7', sessionId, className: 'c' }))?.instance).toBe('pod-7');
    expect(parseSessionRecord(formatSessionRecord({ identity: 'spiffe://a', instance: 'pod-7', ttlSeconds: 15 }))?.instance).toBe('pod-7');
    // Unnamed: byte for byte what was written before instances, so old arbiters and old traces read the same.
    expect(formatHolderValue({ identity: 'spiffe://a', instance: '', sessionId, className: 'c' })).toBe('{"identity":"spiffe://a","session":"9","class":"c"}');
    expect(formatSessionRecord({ identity: 'spiffe://a', instance: '', ttlSeconds: 15 })).toBe('{"identity":"spiffe://a","ttlSeconds":15}');
  });

  it.each(['', 'null', '[]', '{"epoch":-1,"clusterId":"1"}', '{"epoch":1.5,"clusterId":"1"}', '{"epoch":1,"clusterId":1}', '{"epoch":1,"clusterId":"x"}', '{'])(
    'reads the unreadable epoch record %j as absent',
    (text) => {
      expect(parseEpochRecord(text)).toBeUndefined();
    },
  );

  it.each(['{}', '{"identity":"a","session":"x","class":"c"}', '{"identity":1,"session":"1","class":"c"}', '{"identity":"a","instance":7,"session":"1","class":"c"}'])(
    'reads the unreadable holder value %j as absent',
    (text) => {
      expect(parseHolderValue(text)).toBeUndefined();
    },
  );
});
