// The one number formatter for people (issue 17): every time, ratio and share the CLI, the HTML report
// and the web page print goes through here, so a simulated time reads "544.2 ms", never
// "544.1698178557792 ms", and the same figure reads the same everywhere. Machine output (`--json`, the
// run artifact) keeps full precision; rounding is for display only, and `roundTo` for figures a report
// states to a chosen precision.

/** `value` rounded to `digits` decimals (non-finite values unchanged). */
export function roundTo(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** At most `digits` decimals, trailing zeros dropped: 5089.33 -> "5089.3", 12.0 -> "12"; never "-0". */
export function formatNumber(value: number, digits = 1): string {
  if (Number.isNaN(value)) return 'n/a';
  if (!Number.isFinite(value)) return value > 0 ? 'infinity' : '-infinity';
  const text = value.toFixed(digits).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return text === '-0' ? '0' : text;
}

/** A time in ms: "544.2 ms". */
export function formatMs(ms: number, digits = 1): string {
  return `${formatNumber(ms, digits)} ms`;
}

/** A time given in ms, shown in seconds: "5.09 s". */
export function formatSeconds(ms: number, digits = 2): string {
  return `${formatNumber(ms / 1000, digits)} s`;
}

/**
 * A span for people in the unit that reads best: "340 ms", "5.1 s" (under 2 min), "2.5 min" (under 2 h),
 * "3.2 h"; trailing zeros dropped as everywhere here ("5 s", not "5.0 s").
 */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return formatMs(ms, 0);
  if (ms < 120_000) return formatSeconds(ms, 1);
  if (ms < 7_200_000) return `${formatNumber(ms / 60_000, 1)} min`;
  return `${formatNumber(ms / 3_600_000, 1)} h`;
}

/**
 * A simulated time in seconds, or why there is none: "not simulated" (null: the figure was not asked
 * for), "never (within the run)" (infinite: it did not happen before the run ended). The CLI and the page
 * print the same words for the same figure.
 */
export function formatSimulatedSeconds(ms: number | null): string {
  if (ms === null) return 'not simulated';
  return Number.isFinite(ms) ? formatSeconds(ms) : 'never (within the run)';
}

/** A ratio: "1.23x". */
export function formatRatio(ratio: number, digits = 2): string {
  return `${formatNumber(ratio, digits)}x`;
}

/** A share (0..1) as a percentage: "12.5%". */
export function formatPercent(share: number, digits = 1): string {
  return `${formatNumber(share * 100, digits)}%`;
}

/** A deviation (a share, signed) as a percentage with its sign: "+12%", "-3%". */
export function formatDeviation(share: number, digits = 0): string {
  return `${share >= 0 ? '+' : ''}${formatPercent(share, digits)}`;
}
