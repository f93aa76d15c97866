// Calendar dates as `YYYY-MM-DD` strings, with day arithmetic done on the proleptic Gregorian calendar.
// core/ reads no clock (ARCHITECTURE.md, Determinism rule): "today" always arrives as a string from
// src/, and these functions turn dates into day numbers so ages and expiries are plain subtraction.

const CIVIL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_PER_ERA = 146_097; // 400 Gregorian years
const DAYS_FROM_0000_03_01_TO_1970_01_01 = 719_468;

/** Days since 1970-01-01 of a valid date (H. Hinnant's days_from_civil; exact for every year 0000-9999). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400; // [0, 399]
  const shiftedMonth = month > 2 ? month - 3 : month + 9; // March is 0, so leap day ends the year
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1; // [0, 365]
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * DAYS_PER_ERA + dayOfEra - DAYS_FROM_0000_03_01_TO_1970_01_01;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The day number of a `YYYY-MM-DD` string, or undefined when it is not a real calendar date
 * (`2026-02-30`, `2026-1-5`, `2026-11-01T00:00`). Strict, so a typo never becomes a different day.
 */
export function parseCivilDate(text: string): number | undefined {
  const match = CIVIL_DATE.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return daysFromCivil(year, month, day);
}

export function isCivilDate(text: string): boolean {
  return parseCivilDate(text) !== undefined;
}

/** The `YYYY-MM-DD` form of a day number (the inverse of parseCivilDate, for messages and tests). */
export function formatCivilDate(days: number): string {
  const shifted = days + DAYS_FROM_0000_03_01_TO_1970_01_01;
  const era = Math.floor(shifted / DAYS_PER_ERA);
  const dayOfEra = shifted - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
