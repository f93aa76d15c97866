// Readable output of the audit commands: aligned tables, UTC times, durations. Every string that came from
// the log (keys, identities, reasons) goes through terminalSafe first: the log is shared state, and a
// control character in it must not drive the reader's terminal. (Issue 17 brings one terminal-safe
// formatter for every command; until then this is the audit commands' own, minimal one.)

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text with control, bidi and line-separator characters shown as \u escapes. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `2026-06-01 03:12:00.123Z`; `≤ ` before it when the time is only an upper bound. */
export function utc(ms: number | undefined, exact = true): string {
  if (ms === undefined) return '?';
  return `${exact ? '' : '≤ '}${new Date(ms).toISOString().replace('T', ' ')}`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '-';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 2 * 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** Columns padded to their widest cell; the header underlined. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** JSON with bigints as decimal strings (tokens, revisions, ids: ADR-02's wire form). */
export function json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString(10) : v));
}
