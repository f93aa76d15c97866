// The simulator beside reality as distributions (issue 32): per kind and figure, each side's median with
// its order-statistic interval (median-interval.ts), and a verdict. A row agrees when the predicted
// interval overlaps the measured one widened by the tolerance (±25% of its bounds); it differs when they
// do not; with too few draws on either side it says so, rather than set a median of a few draws beside
// another. The medians, ratio and reasons are compareFaultEffects' own (fault-effects.ts: one rule).
import { type ComparisonRow, DEFAULT_TOLERANCE, type FaultEffect, type FaultEffects, compareFaultEffects } from './fault-effects.js';
import { DEFAULT_CONFIDENCE, type MedianInterval, medianInterval } from './median-interval.js';

export type RowVerdict = 'agrees' | 'differs' | 'too few draws' | 'one side only';

export interface DistributionRow extends ComparisonRow {
  readonly measuredInterval: MedianInterval | undefined;
  readonly predictedInterval: MedianInterval | undefined;
  /** How many faults of the kind had the figure, each side. */
  readonly measuredDraws: number;
  readonly predictedDraws: number;
  readonly verdict: RowVerdict;
}

const SAMPLE: Readonly<Record<ComparisonRow['figure'], (e: FaultEffect) => number | undefined>> = {
  nextGrant: (e) => e.nextGrantMs,
  victimKeyGrant: (e) => e.victimKeyGrantMs,
  fence: (e) => e.fenceMs,
  grants: (e) => e.grants,
  refusals: (e) => e.refusals,
  writesAccepted: (e) => e.writesAccepted,
  writesRefused: (e) => e.writesRefused,
};

export interface DistributionOptions {
  readonly tolerance?: number;
  readonly confidence?: number;
}

/** compareFaultEffects' rows with each side's interval and a verdict; `within` is `verdict === 'agrees'`. */
export function compareDistributions(measured: FaultEffects, predicted: FaultEffects, options: DistributionOptions = {}): DistributionRow[] {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  // A figure neither world shows (no fence after any fault of the kind, in both) is no row: it was
  // counted 'one side only', 24-27 such rows a 5-minute gate, which said a difference where there is none.
  const sampled = compareFaultEffects(measured, predicted, tolerance).map((row) => ({ row, m: samplesOf(measured, row), p: samplesOf(predicted, row) }));
  return sampled.filter(({ m, p }) => m.length + p.length > 0).map(({ row, m, p }): DistributionRow => {
    const measuredInterval = medianInterval(m, confidence);
    const predictedInterval = medianInterval(p, confidence);
    const verdict = verdictOf(m.length, p.length, measuredInterval, predictedInterval, tolerance);
    const reason = verdict === 'too few draws' ? `too few draws for a ${Math.round(confidence * 100)}% interval (measured ${m.length}, predicted ${p.length})` : row.reason;
    return { ...row, measuredInterval, predictedInterval, measuredDraws: m.length, predictedDraws: p.length, verdict, within: verdict === 'agrees', reason };
  });
}

/** Whether the predicted interval overlaps the measured one widened by ±tolerance. */
export function intervalsAgree(measured: Pick<MedianInterval, 'low' | 'high'>, predicted: Pick<MedianInterval, 'low' | 'high'>, tolerance = DEFAULT_TOLERANCE): boolean {
  return predicted.low <= measured.high * (1 + tolerance) && predicted.high >= measured.low * (1 - tolerance);
}

function verdictOf(measuredDraws: number, predictedDraws: number, m: MedianInterval | undefined, p: MedianInterval | undefined, tolerance: number): RowVerdict {
  if (measuredDraws === 0 || predictedDraws === 0) return 'one side only';
  if (m === undefined || p === undefined) return 'too few draws';
  return intervalsAgree(m, p, tolerance) ? 'agrees' : 'differs';
}

function samplesOf(effects: FaultEffects, row: ComparisonRow): number[] {
  const pick = SAMPLE[row.figure];
  return effects.perFault.filter((e) => e.group === row.kind).map(pick).filter((v): v is number => v !== undefined);
}
