// A line chart of planner figures against one variable (the TTL sizing view): the model from
// line-model.ts drawn as SVG paths with a marker per point; each marker's title gives its values.
// Paths carry data-series, data-source and data-points, which the browser tests select on.
import { DEFAULT_FRAME, type Frame } from './frame.js';
import { lineChartModel, type Series } from './line-model.js';
import { appendSeriesPath, chartShell, legendEntry } from './svg-frame.js';

export interface LineChartSpec {
  readonly id: string;
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly frame?: Frame;
  /** How a value is printed in a marker's title, e.g. (v) => `${v} s`. */
  readonly formatY?: (value: number) => string;
}

export function renderLineChart(container: HTMLElement, spec: LineChartSpec): { destroy(): void } {
  const frame = spec.frame ?? DEFAULT_FRAME;
  const model = lineChartModel(spec.series, frame);
  const summary = `${spec.yLabel} against ${spec.xLabel}: ${model.lines.map((l) => `${l.label} (${l.source}, ${l.markers.length} points)`).join('; ')}.`;
  const shell = chartShell(container, { id: spec.id, title: spec.title, summary, xLabel: spec.xLabel, yLabel: spec.yLabel, frame, xTicks: model.xTicks, yTicks: model.yTicks });
  const formatY = spec.formatY ?? String;
  for (const l of model.lines) {
    appendSeriesPath(shell.plot, { id: l.id, d: l.d, colour: l.colour, source: l.source, strokeWidth: 2.5, points: l.markers.length });
    const markers = shell.plot.append('g').attr('class', 'markers').attr('data-series', l.id);
    for (const m of l.markers) {
      markers
        .append('circle')
        .attr('cx', m.cx)
        .attr('cy', m.cy)
        .attr('r', 3.5)
        .attr('fill', l.source === 'analytic' ? 'white' : l.colour)
        .attr('stroke', l.colour)
        .attr('stroke-width', 1.5)
        .append('title')
        .text(`${l.label} (${l.source}): ${formatY(m.y)} at ${spec.xLabel} ${m.x}`);
    }
    legendEntry(shell.legend, l.colour, l.dash, `${l.label} (${l.source})`);
  }
  return { destroy: () => shell.figure.remove() };
}
