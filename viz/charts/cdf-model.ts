// The view model of a latency CDF chart (the quorum pricing view): the empirical CDF of each series'
// simulated samples (a topology, a leader placement) as a step line, its analytic references (a floor) as
// vertical lines, and the axes. The x axis
// turns logarithmic when the topologies differ by more than an order of magnitude (a regional quorum
// in ms beside a stretched one in tens of ms), so neither is squashed against an edge.
import { format, line, curveStepAfter, scaleLinear, scaleLog } from 'd3';
import { type Frame, plotArea, type Tick } from './frame.js';
import { seriesColour } from './palette.js';

export interface CdfStep {
  /** A sample value. */
  readonly x: number;
  /** The fraction of samples at or below x. */
  readonly p: number;
}

/** The empirical CDF: one step per distinct value, p = (samples <= x) / n. Empty for no samples. */
export function empiricalCdf(samples: readonly number[]): CdfStep[] {
  const sorted = samples.filter(Number.isFinite).sort((a, b) => a - b);
  const steps: CdfStep[] = [];
  sorted.forEach((x, i) => {
    const p = (i + 1) / sorted.length;
    const last = steps[steps.length - 1];
    if (last !== undefined && last.x === x) steps[steps.length - 1] = { x, p };
    else steps.push({ x, p });
  });
  return steps;
}

/** An analytic figure drawn as a vertical line in its series' colour (a floor, a bound). */
export interface CdfReference {
  /** What the figure is, e.g. "floor"; the legend reads "<series> <label> <value> ms (analytic)". */
  readonly label: string;
  readonly valueMs: number;
}

export interface CdfSeries {
  readonly id: string;
  readonly label: string;
  readonly samplesMs: readonly number[];
  readonly references?: readonly CdfReference[];
}

export interface CdfLine {
  readonly id: string;
  readonly label: string;
  readonly colour: string;
  /** Step path data of the CDF, starting at p = 0 at the smallest sample. */
  readonly d: string;
  readonly steps: number;
  /** Each reference with its x position, px. */
  readonly references: readonly (CdfReference & { readonly at: number })[];
}

export interface CdfChartModel {
  readonly scale: 'log' | 'linear';
  readonly xDomain: readonly [number, number];
  readonly lines: readonly CdfLine[];
  readonly xTicks: readonly Tick[];
  readonly yTicks: readonly Tick[];
}

/** Max over min of the plotted values above which the x axis is logarithmic. */
export const LOG_SCALE_SPREAD = 20;
const LOG_PADDING = 1.15;

export function cdfChartModel(series: readonly CdfSeries[], frame: Frame): CdfChartModel {
  const area = plotArea(frame);
  const values = series.flatMap((s) => [...s.samplesMs, ...(s.references ?? []).map((r) => r.valueMs)]).filter((v) => Number.isFinite(v) && v > 0);
  const lo = values.length === 0 ? 1 : Math.min(...values);
  const hi = values.length === 0 ? 10 : Math.max(...values);
  const useLog = hi / lo > LOG_SCALE_SPREAD;
  // A log axis keeps a little room at both ends rather than rounding out to whole decades, which can
  // leave most of the width empty.
  const x = useLog ? scaleLog().domain([lo / LOG_PADDING, hi * LOG_PADDING]).range([area.x0, area.x1]) : scaleLinear().domain([0, hi]).range([area.x0, area.x1]).nice();
  const y = scaleLinear().domain([0, 1]).range([area.y0, area.y1]);
  const path = line<CdfStep>().x((s) => x(s.x)).y((s) => y(s.p)).curve(curveStepAfter);
  const lines = series.map((s, i) => {
    const cdf = empiricalCdf(s.samplesMs);
    const first = cdf[0];
    const steps = first === undefined ? [] : [{ x: first.x, p: 0 }, ...cdf];
    const references = (s.references ?? []).map((r) => ({ ...r, at: x(r.valueMs) }));
    return { id: s.id, label: s.label, colour: seriesColour(i), d: steps.length === 0 ? '' : (path(steps) ?? ''), steps: cdf.length, references };
  });
  const msLabel = format('~g');
  const xTickValues = useLog ? logTicks(x.domain() as [number, number]) : x.ticks(6);
  return {
    scale: useLog ? 'log' : 'linear',
    xDomain: x.domain() as [number, number],
    lines,
    xTicks: xTickValues.map((value) => ({ value, at: x(value), label: msLabel(value) })),
    yTicks: [0, 0.25, 0.5, 0.75, 0.9, 1].map((value) => ({ value, at: y(value), label: format('.0%')(value) })),
  };
}

/** 1, 2, 5 per decade: enough labels to read a log axis, few enough not to collide. */
function logTicks([lo, hi]: [number, number]): number[] {
  const ticks: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(lo)); decade <= hi; decade *= 10) {
    for (const m of [1, 2, 5]) if (m * decade >= lo && m * decade <= hi) ticks.push(m * decade);
  }
  return ticks;
}
