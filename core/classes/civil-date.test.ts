import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysFromCivil, formatCivilDate, isCivilDate, parseCivilDate } from './civil-date.js';

describe('civil dates', () => {
  it('counts days from 1970-01-01', () => {
    expect(parseCivilDate('1970-01-01')).toBe(0);
    expect(parseCivilDate('1970-01-02')).toBe(1);
    expect(parseCivilDate('1969-12-31')).toBe(-1);
    expect(parseCivilDate('2000-03-01')).toBe(11_017);
    expect(daysFromCivil(2026, 11, 30)).toBe(20_787);
  });

  it('knows leap years: 2024-02-29 exists, 2026-02-29 and 1900-02-29 do not, 2000-02-29 does', () => {
    expect(isCivilDate('2024-02-29')).toBe(true);
    expect(isCivilDate('2000-02-29')).toBe(true);
    expect(isCivilDate('2026-02-29')).toBe(false);
    expect(isCivilDate('1900-02-29')).toBe(false);
    expect(parseCivilDate('2024-03-01')! - parseCivilDate('2024-02-28')!).toBe(2);
    expect(parseCivilDate('2027-11-30')! - parseCivilDate('2026-11-30')!).toBe(365);
    expect(parseCivilDate('2028-11-30')! - parseCivilDate('2027-11-30')!).toBe(366);
  });

  it.each(['2026-13-01', '2026-00-10', '2026-04-31', '2026-1-05', '26-01-05', '2026-01-05T00:00', ' 2026-01-05', '', 'today'])(
    'refuses %j',
    (text) => {
      expect(parseCivilDate(text)).toBeUndefined();
    },
  );

  it('round-trips every day from year 0000 to 9999 through its day number', () => {
    const first = parseCivilDate('0000-01-01')!;
    const last = parseCivilDate('9999-12-31')!;
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), (days) => {
        expect(parseCivilDate(formatCivilDate(days))).toBe(days);
      }),
    );
  });

  it('advances by exactly one day per day, across month and year ends', () => {
    fc.assert(
      fc.property(fc.integer({ min: parseCivilDate('0000-01-01')!, max: parseCivilDate('9999-12-30')! }), (days) => {
        const today = formatCivilDate(days);
        const tomorrow = formatCivilDate(days + 1);
        expect(tomorrow > today).toBe(true);
        expect(parseCivilDate(tomorrow)! - parseCivilDate(today)!).toBe(1);
      }),
    );
  });
});
