// Latency CDFs side by side (the quorum pricing view): each topology's simulated acquisitions as a step
// line, its analytic floor as a dashed vertical line in the same colour (nothing simulated should be
// consistently left of it). Paths carry data-series and data-points; floors carry data-floor.
import { cdfChartModel, type CdfSeries } from './cdf-model.js';
import { DEFAULT_FRAME, type Frame, plotArea } from './frame.js';
import { dashFor } from './palette.js';
import { chartShell, legendEntry } from './svg-frame.js';

export interface CdfChartSpec {
  readonly id: string;
  readonly title: string;
  readonly series: readonly CdfSeries[];
  readonly frame?: Frame;
}

export function renderCdfChart(container: HTMLElement, spec: CdfChartSpec): { destroy(): void } {
  const frame = spec.frame ?? DEFAULT_FRAME;
  const model = cdfChartModel(spec.series, frame);
  const area = plotArea(frame);
  const xLabel = `acquisition latency, ms (${model.scale === 'log' ? 'log scale' : 'linear'})`;
  const summary = `Fraction of simulated acquisitions at or below a latency, per topology, with each analytic floor: ${model.lines.map((l) => `${l.label} floor ${l.floor.valueMs} ms`).join('; ')}.`;
  const shell = chartShell(container, { id: spec.id, title: spec.title, summary, xLabel, yLabel: 'fraction of acquisitions', frame, xTicks: model.xTicks, yTicks: model.yTicks });
  const floorDash = dashFor('analytic');
  for (const l of model.lines) {
    shell.plot
      .append('line')
      .attr('class', 'floor')
      .attr('x1', l.floor.at)
      .attr('x2', l.floor.at)
      .attr('y1', area.y0)
      .attr('y2', area.y1)
      .attr('stroke', l.colour)
      .attr('stroke-width', 1.5)
      .attr('stroke-dasharray', floorDash)
      .attr('data-floor', l.id)
      .append('title')
      .text(`${l.label}: analytic floor ${l.floor.valueMs} ms`);
    shell.plot
      .append('path')
      .attr('class', 'series')
      .attr('d', l.d)
      .attr('fill', 'none')
      .attr('stroke', l.colour)
      .attr('stroke-width', 2)
      .attr('data-series', l.id)
      .attr('data-source', 'simulated')
      .attr('data-points', l.steps);
    legendEntry(shell.legend, l.colour, null, `${l.label} (simulated)`);
    legendEntry(shell.legend, l.colour, floorDash, `${l.label} floor ${l.floor.valueMs} ms (analytic)`);
  }
  return { destroy: () => shell.figure.remove() };
}
