// Moments on the audit command line: `now`, or an ISO 8601 time with its zone (2026-06-01T03:12:00Z,
// 2026-06-01T05:12:00+02:00); a window's start may also be a duration back from now (24h, 30m).
import { parseDuration } from '../duration.js';

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function parseMoment(text: string, flag: string, nowMs: number): number {
  if (text === 'now') return nowMs;
  const ms = ISO_WITH_ZONE.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new Error(`${flag} ${JSON.stringify(text)} is not a time; write now, or ISO 8601 with a zone, e.g. 2026-06-01T03:12:00Z (a time without a zone would depend on this machine's)`);
  }
  return ms;
}

/** A window's start: a duration back from now, or a moment. */
export function parseSince(text: string, flag: string, nowMs: number): number {
  if (/^\d+(\.\d+)?(ms|s|m|h)$/.test(text.trim())) return nowMs - parseDuration(text, flag);
  if (/^\d+(\.\d+)?d$/.test(text.trim())) return nowMs - Number(text.trim().slice(0, -1)) * 86_400_000;
  try {
    return parseMoment(text, flag, nowMs);
  } catch {
    throw new Error(`${flag} ${JSON.stringify(text)} is neither a duration back from now (24h, 30m, 7d) nor a time (ISO 8601 with a zone, e.g. 2026-06-01T00:00:00Z)`);
  }
}

/** A window `--since`..`--until` (default now); throws when either is not a time or the window is empty. */
export function parseWindow(since: string, until: string | undefined, nowMs: number): { sinceMs: number; untilMs: number } {
  const sinceMs = parseSince(since, '--since', nowMs);
  const untilMs = until === undefined ? nowMs : parseMoment(until, '--until', nowMs);
  if (sinceMs >= untilMs) throw new Error(`--since ${since} is not before --until ${until ?? 'now'}; the window is empty`);
  return { sinceMs, untilMs };
}
