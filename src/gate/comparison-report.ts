// How `gate --compare-sim` shows the simulator beside reality (issue 32): per kind and figure, each side's
// median with its 95% order-statistic interval and how many draws it rests on, and the verdict: agrees
// (the intervals overlap within ±25%), differs, too few draws (no interval: the row says nothing), one
// side only. The headline counts only rows with enough draws on both sides.
import type { DistributionRow } from '../../core/checkers/distribution-comparison.js';
import type { MedianInterval } from '../../core/checkers/median-interval.js';
import { formatMs, formatNumber, formatRatio } from '../../core/numbers.js';
import { describeStartUps } from '../../scenarios/start-up-target.js';

export interface ComparisonSection {
  readonly rows: readonly DistributionRow[];
  readonly seeds: readonly string[];
  readonly calibration: string;
  /** The fault kind a --focus schedule repeats, if it was one. */
  readonly focus?: string;
  /** Each arbiter restart's measured start-up (ms, null: never served), replayed in the simulated runs (issue 32). */
  readonly startUpsMs?: Readonly<Record<string, readonly (number | null)[]>>;
}

/** `12 of 14 rows with enough draws agree (5 rows too few draws)`. */
export function comparisonHeadline(c: ComparisonSection): string {
  const decided = c.rows.filter((r) => r.verdict === 'agrees' || r.verdict === 'differs');
  const agree = decided.filter((r) => r.verdict === 'agrees').length;
  const few = c.rows.filter((r) => r.verdict === 'too few draws').length;
  const focus = c.focus === undefined ? '' : `, --focus ${c.focus}`;
  const starts = c.startUpsMs === undefined || Object.keys(c.startUpsMs).length === 0 ? '' : `, ${describeStartUps(new Map(Object.entries(c.startUpsMs)))}`;
  return `simulator beside reality (${c.seeds.length} simulated runs${focus}, ${c.calibration}${starts}): ${agree} of ${decided.length} rows with enough draws agree (95% intervals of the medians overlap within ±25%)${few === 0 ? '' : `; ${few} rows too few draws`} (a report, not a check: it never changes the exit code)`;
}

/** The text lines of the rows either history shows. */
export function comparisonLines(c: ComparisonSection): string[] {
  const shown = c.rows.filter((r) => r.measuredMedian !== undefined || r.predictedMedian !== undefined);
  return shown.map((r) => `    ${MARK[r.verdict]} ${r.kind} ${r.figure}: measured ${side(r.figure, r.measuredMedian, r.measuredInterval, r.measuredDraws)}, predicted ${side(r.figure, r.predictedMedian, r.predictedInterval, r.predictedDraws)}${r.ratio === undefined ? '' : ` (${formatRatio(r.ratio)})`}${r.reason === '' ? '' : ` ${r.reason}`}`);
}

/** The cells of an HTML row: kind, figure, measured, predicted, ratio, verdict, why. */
export function comparisonCells(r: DistributionRow): string[] {
  return [r.kind, r.figure, side(r.figure, r.measuredMedian, r.measuredInterval, r.measuredDraws), side(r.figure, r.predictedMedian, r.predictedInterval, r.predictedDraws), r.ratio === undefined ? '' : formatRatio(r.ratio), r.verdict, r.reason];
}

export const COMPARISON_HEADINGS: readonly string[] = ['kind', 'figure', 'measured median [95% interval] (draws)', 'predicted median [95% interval] (draws)', 'ratio', 'verdict', 'why'];

const MARK: Readonly<Record<DistributionRow['verdict'], string>> = { agrees: 'ok  ', differs: 'off ', 'too few draws': 'few ', 'one side only': 'one ' };

export function showFigure(figure: DistributionRow['figure'], value: number | undefined): string {
  if (value === undefined) return 'none';
  return ['nextGrant', 'victimKeyGrant', 'fence'].includes(figure) ? formatMs(value) : formatNumber(value);
}

function side(figure: DistributionRow['figure'], median: number | undefined, interval: MedianInterval | undefined, draws: number): string {
  if (median === undefined) return 'none';
  const bounds = interval === undefined ? '' : ` [${showFigure(figure, interval.low)}, ${showFigure(figure, interval.high)}]`;
  return `${showFigure(figure, median)}${bounds} (${draws})`;
}
