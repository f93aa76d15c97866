// Latency CDFs side by side (the quorum pricing view): each series' simulated acquisitions (a topology,
// or one leader placement of a topology) as a step line, and its analytic references (a floor) as dashed
// vertical lines in the same colour (nothing simulated should be consistently left of a floor). Paths
// carry data-series and data-points; reference lines carry data-reference (the series) and data-label.
import { cdfChartModel, type CdfSeries } from './cdf-model.js';
import { DEFAULT_FRAME, type Frame, plotArea } from './frame.js';
import { dashFor } from './palette.js';
import { appendSeriesPath, chartShell, legendEntry } from './svg-frame.js';

export interface CdfChartSpec {
  readonly id: string;
  readonly title: string;
  /** What one series is, for the text alternative: "topology", "leader placement". */
  readonly seriesNoun: string;
  readonly series: readonly CdfSeries[];
  readonly frame?: Frame;
}

export function renderCdfChart(container: HTMLElement, spec: CdfChartSpec): { destroy(): void } {
  const frame = spec.frame ?? DEFAULT_FRAME;
  const model = cdfChartModel(spec.series, frame);
  const area = plotArea(frame);
  const xLabel = `acquisition latency, ms (${model.scale === 'log' ? 'log scale' : 'linear'})`;
  const references = model.lines.flatMap((l) => l.references.map((r) => `${l.label} ${r.label} ${r.valueMs} ms`));
  const summary = `Fraction of simulated acquisitions at or below a latency, per ${spec.seriesNoun}${references.length === 0 ? '' : `, with the analytic ${references.join('; ')}`}.`;
  const shell = chartShell(container, { id: spec.id, title: spec.title, summary, xLabel, yLabel: 'fraction of acquisitions', frame, xTicks: model.xTicks, yTicks: model.yTicks });
  const referenceDash = dashFor('analytic');
  for (const l of model.lines) {
    for (const r of l.references) {
      shell.plot
        .append('line')
        .attr('class', 'reference')
        .attr('x1', r.at)
        .attr('x2', r.at)
        .attr('y1', area.y0)
        .attr('y2', area.y1)
        .attr('stroke', l.colour)
        .attr('stroke-width', 1.5)
        .attr('stroke-dasharray', referenceDash)
        .attr('data-reference', l.id)
        .attr('data-label', r.label)
        .append('title')
        .text(`${l.label}: ${r.label} ${r.valueMs} ms (analytic)`);
    }
    appendSeriesPath(shell.plot, { id: l.id, d: l.d, colour: l.colour, source: 'simulated', strokeWidth: 2, points: l.steps });
    legendEntry(shell.legend, l.colour, null, `${l.label} (simulated)`);
    for (const r of l.references) legendEntry(shell.legend, l.colour, referenceDash, `${l.label} ${r.label} ${r.valueMs} ms (analytic)`);
  }
  return { destroy: () => shell.figure.remove() };
}
