// ADR-01's risk register: every advisory class (unfenced, on a waiver) with its purpose, risk owner, the
// waiver's last day and the days left, soonest expiry first, so that "some advisory classes will be
// renewed for ever" stays visible. A waiver within WAIVER_WARNING_DAYS of its end is a warning; one whose
// last day has passed is a failure. `lockstep class register` prints it (src/commands/class-register.ts).
import { formatCivilDate, parseCivilDate } from './civil-date.js';
import type { LockClass, Purpose } from './model.js';

/** A waiver this close to its last day (inclusive) is flagged for renewal. */
export const WAIVER_WARNING_DAYS = 30;

export type WaiverStatus = 'current' | 'expiring' | 'expired';

export interface RegisterEntry {
  readonly namespace: string;
  readonly name: string;
  readonly purpose: Purpose;
  readonly riskOwner: string;
  /** `YYYY-MM-DD`; the waiver holds through the end of that day. */
  readonly waiverExpires: string;
  /** Days from today to the waiver's last day: 0 on the last day, negative once it has passed. */
  readonly daysLeft: number;
  readonly status: WaiverStatus;
}

export interface RiskRegister {
  readonly today: string;
  readonly warningDays: number;
  readonly entries: readonly RegisterEntry[];
  readonly expired: number;
  readonly expiring: number;
}

/** The register of the advisory classes among `classes` (fenced ones are not waivers and are left out). */
export function riskRegister(classes: readonly LockClass[], today: string): RiskRegister {
  const todayDays = parseCivilDate(today);
  if (todayDays === undefined) throw new RangeError(`today ${JSON.stringify(today)} is not a calendar date YYYY-MM-DD`);
  const entries = classes.flatMap((c) => {
    // checkDocuments returns an advisory class only with both fields (ADR-01); the guard keeps the types honest.
    if (c.enforcement !== 'advisory' || c.riskOwner === undefined || c.waiverExpires === undefined) return [];
    const expiresDays = parseCivilDate(c.waiverExpires);
    if (expiresDays === undefined) return [];
    const daysLeft = expiresDays - todayDays;
    const status: WaiverStatus = daysLeft < 0 ? 'expired' : daysLeft <= WAIVER_WARNING_DAYS ? 'expiring' : 'current';
    return [{ namespace: c.namespace, name: c.name, purpose: c.purpose, riskOwner: c.riskOwner, waiverExpires: formatCivilDate(expiresDays), daysLeft, status }];
  });
  entries.sort((a, b) => a.daysLeft - b.daysLeft || compare(a.namespace, b.namespace) || compare(a.name, b.name));
  return { today, warningDays: WAIVER_WARNING_DAYS, entries, expired: count(entries, 'expired'), expiring: count(entries, 'expiring') };
}

function count(entries: readonly RegisterEntry[], status: WaiverStatus): number {
  return entries.filter((e) => e.status === status).length;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
