// When a pause test ran (ADR-17): a calendar date `YYYY-MM-DD`, or an RFC 3339 timestamp such as
// `2026-10-01T12:00:00Z`, the form Kubernetes writes for times (metav1.Time) and the one the pause test
// kit writes. A timestamp with an offset names the UTC day it falls on, since "today" is a UTC date
// (src/policy-files.ts todayUtc). Strict like civil-date.ts: a typo is refused, never read as another day.
import { parseCivilDate } from './civil-date.js';

/** RFC 3339 section 5.6 date-time: full-date "T" full-time, with a fraction and a Z or a numeric offset. */
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const SECONDS_PER_DAY = 86_400;

/** A moment to the second in UTC: the day number (civil-date.ts) and the second of that day. */
export interface RanAt {
  readonly days: number;
  readonly secondOfDay: number;
}

export const RAN_AT_RULE = 'the date or time of the run: YYYY-MM-DD, or an RFC 3339 timestamp such as 2026-10-01T12:00:00Z';

/** The moment a `YYYY-MM-DD` date (its first second) or an RFC 3339 timestamp names; undefined when it is neither. */
export function parseRanAt(text: string): RanAt | undefined {
  const date = parseCivilDate(text);
  if (date !== undefined) return { days: date, secondOfDay: 0 };
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const days = parseCivilDate(match[1] as string);
  const [hour, minute, second] = [match[2], match[3], match[4]].map(Number) as [number, number, number];
  if (days === undefined || hour > 23 || minute > 59 || second > 60) return undefined; // 60: a leap second
  let offsetSeconds = 0;
  if (match[5] === undefined) {
    const [offsetHours, offsetMinutes] = [Number(match[7]), Number(match[8])];
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    offsetSeconds = (match[6] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  const utcSeconds = days * SECONDS_PER_DAY + hour * 3600 + minute * 60 + Math.min(second, 59) - offsetSeconds;
  const utcDays = Math.floor(utcSeconds / SECONDS_PER_DAY);
  return { days: utcDays, secondOfDay: utcSeconds - utcDays * SECONDS_PER_DAY };
}

export function isRanAt(text: string): boolean {
  return parseRanAt(text) !== undefined;
}

/** Newest first: a negative number when `a` is later than `b`. Text that is not a moment sorts last. */
export function newerFirst(a: string, b: string): number {
  const [x, y] = [parseRanAt(a), parseRanAt(b)];
  if (x === undefined || y === undefined) return x === undefined ? (y === undefined ? 0 : 1) : -1;
  return y.days - x.days || y.secondOfDay - x.secondOfDay;
}
