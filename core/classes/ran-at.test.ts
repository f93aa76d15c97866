import { describe, expect, it } from 'vitest';
import { parseCivilDate } from './civil-date.js';
import { newerFirst, parseRanAt } from './ran-at.js';

const day = (date: string): number => parseCivilDate(date) as number;

describe('ranAt: a date or an RFC 3339 timestamp (ADR-17)', () => {
  it('reads a date as its first second, and a UTC timestamp as its second of that day', () => {
    expect(parseRanAt('2026-10-01')).toEqual({ days: day('2026-10-01'), secondOfDay: 0 });
    expect(parseRanAt('2026-10-01T12:00:00Z')).toEqual({ days: day('2026-10-01'), secondOfDay: 43_200 });
    expect(parseRanAt('2026-10-01t12:00:00.123456z')).toEqual({ days: day('2026-10-01'), secondOfDay: 43_200 });
  });

  it('moves a timestamp with an offset to the UTC day it falls on', () => {
    expect(parseRanAt('2026-10-01T01:30:00+02:00')).toEqual({ days: day('2026-09-30'), secondOfDay: 23 * 3600 + 30 * 60 });
    expect(parseRanAt('2026-12-31T23:00:00-05:00')).toEqual({ days: day('2027-01-01'), secondOfDay: 4 * 3600 });
  });

  it.each([
    '2026-10-01T12:00:00', // no zone: RFC 3339 requires one
    '2026-10-01 12:00:00Z', // a space is ISO 8601's reading aid, not RFC 3339's grammar
    '2026-10-01T24:00:00Z',
    '2026-10-01T12:60:00Z',
    '2026-02-30T12:00:00Z',
    '2026-10-01T12:00:00+24:00',
    '2026-10-01T12:00Z',
    '1 Oct 2026',
    '',
  ])('refuses %j', (text) => {
    expect(parseRanAt(text)).toBeUndefined();
  });

  it('orders dates and timestamps newest first, by the moment they name', () => {
    const texts = ['2026-10-01', '2026-10-01T12:00:00Z', '2026-10-01T13:00:00+02:00', '2026-09-30T23:59:59Z', 'garbage'];
    expect([...texts].sort(newerFirst)).toEqual(['2026-10-01T12:00:00Z', '2026-10-01T13:00:00+02:00', '2026-10-01', '2026-09-30T23:59:59Z', 'garbage']);
  });
});
