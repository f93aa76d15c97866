// What the line and CDF charts draw alike: the figure with its caption, the SVG with a text alternative,
// the axes with their ticks and labels, and a legend as an HTML list (readable by a screen reader and
// selectable, unlike SVG text). A chart is static once drawn: a new result draws a new chart.
import { select, type Selection } from 'd3';
import { type Frame, plotArea, type Tick } from './frame.js';
import { dashFor, type FigureSource } from './palette.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

export interface ChartShell {
  readonly figure: HTMLElement;
  readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  readonly plot: Selection<SVGGElement, unknown, null, undefined>;
  readonly legend: HTMLUListElement;
}

export interface ShellSpec {
  readonly id: string;
  readonly title: string;
  /** One sentence for the text alternative: what is plotted against what. */
  readonly summary: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly frame: Frame;
  readonly xTicks: readonly Tick[];
  readonly yTicks: readonly Tick[];
}

export function chartShell(container: HTMLElement, spec: ShellSpec): ChartShell {
  const doc = container.ownerDocument;
  const figure = doc.createElement('figure');
  figure.className = 'chart';
  figure.dataset['chart'] = spec.id;
  const caption = doc.createElement('figcaption');
  caption.id = `${spec.id}-caption`;
  caption.textContent = spec.title;
  figure.append(caption);
  const svgNode = doc.createElementNS(SVG_NS, 'svg');
  figure.append(svgNode);
  const svg = select(svgNode)
    .attr('viewBox', `0 0 ${spec.frame.width} ${spec.frame.height}`)
    .attr('role', 'img')
    .attr('aria-labelledby', caption.id)
    .attr('aria-describedby', `${spec.id}-summary`);
  svg.append('desc').attr('id', `${spec.id}-summary`).text(spec.summary);
  drawAxes(svg, spec);
  const plot = svg.append('g').attr('class', 'plot');
  const legend = doc.createElement('ul');
  legend.className = 'legend';
  figure.append(legend);
  container.append(figure);
  return { figure, svg, plot, legend };
}

function drawAxes(svg: Selection<SVGSVGElement, unknown, null, undefined>, spec: ShellSpec): void {
  const area = plotArea(spec.frame);
  const axes = svg.append('g').attr('class', 'axes').attr('aria-hidden', 'true');
  const grid = axes.append('g').attr('class', 'grid');
  for (const t of spec.yTicks) grid.append('line').attr('x1', area.x0).attr('x2', area.x1).attr('y1', t.at).attr('y2', t.at);
  axes.append('line').attr('class', 'axis-line').attr('x1', area.x0).attr('x2', area.x1).attr('y1', area.y0).attr('y2', area.y0);
  axes.append('line').attr('class', 'axis-line').attr('x1', area.x0).attr('x2', area.x0).attr('y1', area.y0).attr('y2', area.y1);
  const x = axes.append('g').attr('class', 'x-ticks');
  for (const t of spec.xTicks) {
    x.append('line').attr('x1', t.at).attr('x2', t.at).attr('y1', area.y0).attr('y2', area.y0 + 5);
    x.append('text').attr('x', t.at).attr('y', area.y0 + 18).attr('text-anchor', 'middle').text(t.label);
  }
  const y = axes.append('g').attr('class', 'y-ticks');
  for (const t of spec.yTicks) {
    y.append('line').attr('x1', area.x0 - 5).attr('x2', area.x0).attr('y1', t.at).attr('y2', t.at);
    y.append('text').attr('x', area.x0 - 8).attr('y', t.at + 4).attr('text-anchor', 'end').text(t.label);
  }
  axes.append('text').attr('class', 'axis-label').attr('x', (area.x0 + area.x1) / 2).attr('y', spec.frame.height - 6).attr('text-anchor', 'middle').text(spec.xLabel);
  axes
    .append('text')
    .attr('class', 'axis-label')
    .attr('transform', `translate(14 ${(area.y0 + area.y1) / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .text(spec.yLabel);
}

/** One series' line as both charts draw it; data-series, data-source and data-points are what tests select on. */
export interface SeriesPathSpec {
  readonly id: string;
  readonly d: string;
  readonly colour: string;
  readonly source: FigureSource;
  readonly strokeWidth: number;
  /** Points (line chart) or steps (CDF) the path goes through. */
  readonly points: number;
}

export function appendSeriesPath(plot: Selection<SVGGElement, unknown, null, undefined>, spec: SeriesPathSpec): void {
  plot
    .append('path')
    .attr('class', 'series')
    .attr('d', spec.d)
    .attr('fill', 'none')
    .attr('stroke', spec.colour)
    .attr('stroke-width', spec.strokeWidth)
    .attr('stroke-dasharray', dashFor(spec.source))
    .attr('data-series', spec.id)
    .attr('data-source', spec.source)
    .attr('data-points', spec.points);
}

/** A legend entry: a short line in the series' colour and dash, then its label. */
export function legendEntry(legend: HTMLUListElement, colour: string, dash: string | null, label: string): void {
  const doc = legend.ownerDocument;
  const item = doc.createElement('li');
  const swatch = select(doc.createElementNS(SVG_NS, 'svg')).attr('width', 28).attr('height', 10).attr('aria-hidden', 'true');
  swatch.append('line').attr('x1', 1).attr('x2', 27).attr('y1', 5).attr('y2', 5).attr('stroke', colour).attr('stroke-width', 2.5).attr('stroke-dasharray', dash);
  item.append(swatch.node()!, doc.createTextNode(` ${label}`));
  legend.append(item);
}
