// Readable output of the audit commands: UTC times. Every string that came from the log (keys, identities,
// reasons) goes through src/terminal-text.ts `oneLine` first: the log is shared state, and a control
// character or a line break in it must neither drive the reader's terminal nor forge a row. Durations are
// core/numbers.ts `formatDuration`, tables src/text-table.ts, JSON core/json-text.ts (issue 34: one each).

/** `2026-06-01 03:12:00.123Z`; `≤ ` before it when the time is only an upper bound. */
export function utc(ms: number | undefined, exact = true): string {
  if (ms === undefined) return '?';
  return `${exact ? '' : '≤ '}${new Date(ms).toISOString().replace('T', ' ')}`;
}
