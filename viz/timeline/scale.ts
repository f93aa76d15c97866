// Time on the x axis: simulated milliseconds from the start of the run, shown in the unit a reader
// would use at the current zoom (ms for a close look, s for a run, min:s for a long one).
import { formatNumber } from '../../core/numbers.js';

/** The tick text for `ms` when the visible window is `spanMs` wide. */
export function formatTime(ms: number, spanMs: number): string {
  if (spanMs < 5_000) return `${trim(ms, spanMs < 50 ? 2 : spanMs < 500 ? 1 : 0)} ms`;
  if (spanMs < 300_000) return `${trim(ms / 1000, spanMs < 20_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = (ms - minutes * 60_000) / 1000;
  return `${minutes}:${seconds.toFixed(0).padStart(2, '0')}`;
}

function trim(value: number, decimals: number): string {
  return formatNumber(value, decimals);
}

/** The zoom that shows `window` across `widthPx`, given a base scale mapping the whole run to [0, widthPx]. */
export function zoomFor(window: { startMs: number; endMs: number }, extentMs: number, maxScale: number): { k: number; tx: number } {
  const span = Math.max(window.endMs - window.startMs, 1e-9);
  const k = Math.min(maxScale, Math.max(1, extentMs / span));
  const center = (window.startMs + window.endMs) / 2;
  // In base units (fraction of the run, times the width), the translation that centres `center`.
  return { k, tx: 0.5 - (center / extentMs) * k };
}
