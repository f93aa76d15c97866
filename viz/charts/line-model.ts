// The view model of a line chart (the TTL sizing view): scales from the data, one SVG path per series
// with a marker per point, and the axis ticks, all in px. Pure, so it is tested without a browser;
// line-chart.ts only puts it into the page.
import { format, line, scaleLinear } from 'd3';
import { type Frame, plotArea, type Tick } from './frame.js';
import { dashFor, type FigureSource, seriesColour } from './palette.js';

export interface Point {
  readonly x: number;
  /** null: no value at this x (e.g. a run that never finished); the line skips it. */
  readonly y: number | null;
}

export interface Series {
  readonly id: string;
  readonly label: string;
  readonly source: FigureSource;
  readonly points: readonly Point[];
}

export interface Marker {
  readonly x: number;
  readonly y: number;
  readonly cx: number;
  readonly cy: number;
}

export interface LineModel {
  readonly id: string;
  readonly label: string;
  readonly source: FigureSource;
  readonly colour: string;
  readonly dash: string | null;
  /** SVG path data through the finite points, in x order. */
  readonly d: string;
  readonly markers: readonly Marker[];
}

export interface LineChartModel {
  readonly xDomain: readonly [number, number];
  readonly yDomain: readonly [number, number];
  readonly lines: readonly LineModel[];
  readonly xTicks: readonly Tick[];
  readonly yTicks: readonly Tick[];
}

const TICKS = 6;

function finitePoints(series: Series): Array<{ x: number; y: number }> {
  return series.points.filter((p): p is { x: number; y: number } => p.y !== null && Number.isFinite(p.y) && Number.isFinite(p.x)).sort((a, b) => a.x - b.x);
}

/** Lays out the series; y starts at zero (rates and durations), both axes rounded to nice ticks. */
export function lineChartModel(series: readonly Series[], frame: Frame): LineChartModel {
  const area = plotArea(frame);
  const all = series.flatMap(finitePoints);
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const xMin = xs.length === 0 ? 0 : Math.min(...xs);
  const xMax = xs.length === 0 ? 1 : Math.max(...xs);
  const yMax = ys.length === 0 ? 1 : Math.max(...ys);
  // A single x or an all-zero y still gets an axis with some extent.
  const x = scaleLinear().domain(xMin === xMax ? [xMin - 1, xMax + 1] : [xMin, xMax]).range([area.x0, area.x1]);
  const y = scaleLinear().domain([0, yMax > 0 ? yMax : 1]).range([area.y0, area.y1]).nice(TICKS);
  const path = line<{ x: number; y: number }>().x((p) => x(p.x)).y((p) => y(p.y));
  const lines = series.map((s, i) => {
    const points = finitePoints(s);
    return {
      id: s.id,
      label: s.label,
      source: s.source,
      colour: seriesColour(i),
      dash: dashFor(s.source),
      d: points.length === 0 ? '' : (path(points) ?? ''),
      markers: points.map((p) => ({ x: p.x, y: p.y, cx: x(p.x), cy: y(p.y) })),
    };
  });
  const tickLabel = format('~g');
  return {
    xDomain: x.domain() as [number, number],
    yDomain: y.domain() as [number, number],
    lines,
    xTicks: x.ticks(TICKS).map((value) => ({ value, at: x(value), label: tickLabel(value) })),
    yTicks: y.ticks(TICKS).map((value) => ({ value, at: y(value), label: tickLabel(value) })),
  };
}
