// Durations on the command line: `500ms`, `30s`, `2m`, `1h`, or a bare number of seconds. A limit is
// stated in the flag's own words (`--wait "99999h" is longer than 10m ...`), never as the core's field.
import { formatNumber } from '../core/numbers.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export interface DurationLimit {
  readonly maxMs: number;
  /** Why it is the limit: "the longest wait in line the arbiter allows". */
  readonly why: string;
}

export function parseDuration(text: string, flag: string, limit?: DurationLimit): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) {
    throw new Error(`${flag} ${JSON.stringify(text)} is not a duration; write it like 500ms, 30s, 2m or 1h`);
  }
  const [, amount = '0', unit = 's'] = match;
  const ms = Number(amount) * (UNIT_MS[unit] ?? 1000);
  if (limit !== undefined && !(ms <= limit.maxMs)) throw new Error(`${flag} ${JSON.stringify(text)} is longer than ${durationText(limit.maxMs)}, ${limit.why}; give at most ${durationText(limit.maxMs)}`);
  return ms;
}

/** A duration as a flag would take it: "10m", "1.5s", "500ms". */
export function durationText(ms: number): string {
  if (ms >= 3_600_000 && ms % 60_000 === 0) return ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : `${ms / 60_000}m`;
  if (ms >= 60_000 && ms % 1000 === 0) return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
  return ms >= 1000 ? `${formatNumber(ms / 1000, 3)}s` : `${formatNumber(ms, 0)}ms`;
}
