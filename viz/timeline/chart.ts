// The SVG part of the timeline: lanes with their names, a time axis, zoom and pan (d3-zoom: wheel, drag,
// and the view's + / - keys), and the marks of the current viewport only (viewport.ts decimates them),
// re-drawn after each zoom. Marks carry data-kind (dom-contract.ts); lanes carry data-lane.
import { type D3ZoomEvent, type ScaleLinear, type Selection, type ZoomBehavior, type ZoomTransform, axisTop, scaleLinear, select, zoom, zoomIdentity } from 'd3';
import { ATTR } from './dom-contract.js';
import { KIND_STYLES, VIOLATION_COLOUR, type Band } from './palette.js';
import { formatMs } from '../../core/numbers.js';
import { formatTime, zoomFor } from './scale.js';
import type { Mark, TimeWindow, TimelineModel } from './types.js';
import { type DrawnMark, indexMarks, type ViewportIndex } from './viewport.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const LABEL_WIDTH = 120;
const AXIS_HEIGHT = 28;
const LANE_HEIGHT = 40;
/** Narrowest drawn width: a tick; a span (a write, a rejection) wide enough to show its pattern; a violation's mark wider still, so its outline and hatch read. */
const MIN_MARK_PX = { tick: 3, span: 6, violation: 10 } as const;
/** The closest zoom shows about a tenth of a millisecond across the chart. */
const FINEST_MS = 0.1;
/** y and height of each band within a lane. */
const BANDS: Readonly<Record<Band, readonly [number, number]>> = { background: [1, 38], span: [5, 15], belief: [22, 6], tick: [30, 8] };
const BAND_ORDER: readonly Band[] = ['background', 'span', 'belief', 'tick'];
/** Pattern and clip ids are per chart, so two timelines on one page do not share them. */
let chartCount = 0;

export interface ChartEvents {
  readonly onSelect: (mark: Mark, merged: number) => void;
}

export class TimelineChart {
  readonly svg: SVGSVGElement;
  private readonly index: ViewportIndex;
  private readonly base: ScaleLinear<number, number>;
  private x: ScaleLinear<number, number>;
  private readonly zoomBehaviour: ZoomBehavior<SVGSVGElement, unknown>;
  private readonly laneGroups = new Map<string, SVGGElement>();
  private readonly axisGroup: SVGGElement;
  private widthPx: number;
  private selectedId: number | undefined;
  private frame: number | undefined;
  private lastDrawn: DrawnMark[] = [];
  private readonly ids = `lst${(chartCount += 1)}`;

  constructor(
    private readonly host: HTMLElement,
    private readonly model: TimelineModel,
    private readonly events: ChartEvents,
  ) {
    this.index = indexMarks(model);
    this.widthPx = Math.max(200, host.clientWidth - LABEL_WIDTH - 2);
    this.base = scaleLinear().domain([model.extent.startMs, model.extent.endMs]).range([0, this.widthPx]);
    this.x = this.base.copy();
    const height = AXIS_HEIGHT + LANE_HEIGHT * model.lanes.length;
    const doc = host.ownerDocument;
    this.svg = doc.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('width', String(LABEL_WIDTH + this.widthPx));
    this.svg.setAttribute('height', String(height));
    this.svg.setAttribute('aria-hidden', 'true'); // the keyboard and the details panel carry the content for assistive technology
    host.appendChild(this.svg);
    const root = select(this.svg);
    addPatterns(root, this.ids, this.widthPx, height);
    this.axisGroup = root.append('g').attr('class', 'lst-axis').attr('transform', `translate(${LABEL_WIDTH},${AXIS_HEIGHT - 4})`).node() as SVGGElement;
    model.lanes.forEach((lane, i) => {
      const g = root.append('g').attr('class', 'lst-lane').attr(ATTR.lane, lane.name).attr('transform', `translate(0,${AXIS_HEIGHT + i * LANE_HEIGHT})`);
      g.append('rect').attr('class', 'lst-lane-bg').attr('x', LABEL_WIDTH).attr('width', this.widthPx).attr('height', LANE_HEIGHT);
      g.append('text').attr('class', 'lst-lane-label').attr('x', 6).attr('y', LANE_HEIGHT / 2).text(lane.label).append('title').text(`${lane.role}: ${lane.label}`);
      const marks = g.append('g').attr('class', 'lst-marks').attr('transform', `translate(${LABEL_WIDTH},0)`).attr('clip-path', `url(#${this.ids}-clip)`);
      this.laneGroups.set(lane.name, marks.node() as SVGGElement);
    });
    const maxScale = Math.max(1, (model.extent.endMs - model.extent.startMs) / FINEST_MS);
    this.zoomBehaviour = zoom<SVGSVGElement, unknown>()
      .scaleExtent([1, maxScale])
      .translateExtent([[0, 0], [this.widthPx, height]])
      .extent([[0, 0], [this.widthPx, height]])
      .on('zoom', (event: D3ZoomEvent<SVGSVGElement, unknown>) => this.zoomed(event.transform));
    root.call(this.zoomBehaviour);
    this.draw();
  }

  /** The visible window of simulated time. */
  get window(): TimeWindow {
    const [startMs, endMs] = this.x.domain() as [number, number];
    return { startMs, endMs };
  }

  /** What the last draw put on the page (for tests and the status line). */
  get drawn(): readonly DrawnMark[] {
    return this.lastDrawn;
  }

  zoomBy(factor: number): void {
    select(this.svg).call(this.zoomBehaviour.scaleBy, factor);
  }

  show(window: TimeWindow): void {
    const extentMs = this.model.extent.endMs - this.model.extent.startMs;
    const { k, tx } = zoomFor({ startMs: window.startMs - this.model.extent.startMs, endMs: window.endMs - this.model.extent.startMs }, extentMs, this.zoomBehaviour.scaleExtent()[1]);
    select(this.svg).call(this.zoomBehaviour.transform, zoomIdentity.translate(tx * this.widthPx, 0).scale(k));
  }

  /** Pans (keeping the zoom) so the mark is in view, if it is not. */
  reveal(mark: Mark): void {
    const { startMs, endMs } = this.window;
    if (mark.endMs >= startMs && mark.startMs <= endMs) return;
    const half = (endMs - startMs) / 2;
    const center = (mark.startMs + mark.endMs) / 2;
    this.show({ startMs: center - half, endMs: center + half });
  }

  select(id: number | undefined): void {
    this.selectedId = id;
    this.draw();
  }

  destroy(): void {
    if (this.frame !== undefined) this.host.ownerDocument.defaultView?.cancelAnimationFrame(this.frame);
    select(this.svg).on('.zoom', null);
    this.svg.remove();
  }

  private zoomed(transform: ZoomTransform): void {
    this.x = transform.rescaleX(this.base);
    // Wheel and drag send many events a frame; draw once per frame.
    const view = this.host.ownerDocument.defaultView;
    if (view === null) return this.draw();
    if (this.frame === undefined) {
      this.frame = view.requestAnimationFrame(() => {
        this.frame = undefined;
        this.draw();
      });
    }
  }

  private draw(): void {
    const window = this.window;
    const span = window.endMs - window.startMs;
    select(this.axisGroup).call(axisTop<number>(this.x).ticks(Math.max(2, Math.floor(this.widthPx / 90))).tickFormat((ms) => formatTime(ms, span)));
    const pinned = new Set<number>(this.selectedId === undefined ? [] : [this.selectedId]);
    this.lastDrawn = this.index.visible(window, this.widthPx, pinned);
    const byLane = new Map<string, DrawnMark[]>();
    for (const d of this.lastDrawn) {
      const list = byLane.get(d.lane);
      if (list === undefined) byLane.set(d.lane, [d]);
      else list.push(d);
    }
    for (const [lane, group] of this.laneGroups) this.drawLane(group, byLane.get(lane) ?? []);
  }

  private drawLane(group: SVGGElement, drawn: DrawnMark[]): void {
    drawn.sort((a, b) => BAND_ORDER.indexOf(KIND_STYLES[a.kind].band) - BAND_ORDER.indexOf(KIND_STYLES[b.kind].band) || a.startMs - b.startMs);
    const items = select(group)
      .selectAll<SVGGElement, DrawnMark>('g.lst-item')
      .data(drawn)
      .join((enter) => {
        const g = enter.append('g').attr('class', 'lst-item');
        g.append('rect').attr('class', 'lst-mark');
        g.append('rect').attr('class', 'lst-overlay').attr('pointer-events', 'none');
        g.append('text').attr('class', 'lst-mark-text');
        g.append('title');
        return g;
      });
    items.each((d, i, nodes) => this.drawItem(nodes[i] as SVGGElement, d));
  }

  private drawItem(node: SVGGElement, d: DrawnMark): void {
    const style = KIND_STYLES[d.kind];
    const [y, h] = BANDS[style.band];
    const x0 = this.x(d.startMs);
    const x1 = this.x(d.endMs);
    const violating = d.mark.violations.length > 0;
    const minWidth = violating ? MIN_MARK_PX.violation : style.band === 'span' ? MIN_MARK_PX.span : MIN_MARK_PX.tick;
    const width = Math.max(minWidth, x1 - x0);
    const x = x1 - x0 < minWidth ? (x0 + x1) / 2 - minWidth / 2 : x0;
    const g = select(node);
    const rect = g.select<SVGRectElement>('rect.lst-mark')
      .attr('x', x).attr('y', y).attr('width', width).attr('height', h)
      .attr('fill', style.fill)
      .attr('fill-opacity', style.band === 'background' ? 0.35 : 1)
      .attr(ATTR.kind, d.kind)
      .attr(ATTR.count, d.count > 1 ? String(d.count) : null)
      .attr(ATTR.violation, violating ? d.mark.violations.join(' ') : null)
      .attr(ATTR.selected, d.mark.id === this.selectedId && d.count === 1 ? '' : null)
      .attr('data-mark', String(d.mark.id));
    rect.on('click', (event: MouseEvent) => {
      event.stopPropagation();
      this.events.onSelect(d.mark, d.count);
    });
    // Pattern over the fill: the kind's own (hatch, cross), and a violation's hatch on top of any.
    const pattern = violating ? `${this.ids}-violation` : style.pattern === undefined ? undefined : `${this.ids}-${style.pattern}`;
    g.select('rect.lst-overlay').attr('x', x).attr('y', y).attr('width', width).attr('height', h).attr('fill', pattern === undefined ? 'none' : `url(#${pattern})`);
    const label = d.count > 1 ? `${d.count}` : d.mark.label;
    const fits = width > label.length * 6.5 + 6 && style.band === 'span';
    // A span that starts left of the view keeps its label at the view's left edge.
    const textX = Math.max(x, 0) + 3;
    const visibleWidth = Math.min(x + width, this.widthPx) - Math.max(x, 0);
    const fitsVisible = fits && visibleWidth > label.length * 6.5 + 6;
    g.select('text').attr('x', textX).attr('y', y + h / 2).attr('fill', style.text).text(fitsVisible ? label : '');
    const when = d.startMs === d.endMs ? formatMs(d.startMs, 3) : `${formatMs(d.startMs, 3)} – ${formatMs(d.endMs, 3)}`;
    g.select('title').text(d.count > 1 ? `${d.count} ${style.name} marks, ${when}` : `${style.name} ${d.mark.label}, ${when}${violating ? ` — violation: ${d.mark.violations.join(', ')}` : ''}`);
  }
}

function addPatterns(root: Selection<SVGSVGElement, unknown, null, undefined>, ids: string, widthPx: number, height: number): void {
  const defs = root.append('defs');
  defs.append('clipPath').attr('id', `${ids}-clip`).append('rect').attr('width', widthPx).attr('height', height);
  const hatch = (id: string, colour: string, cross: boolean, size: number): void => {
    const p = defs.append('pattern').attr('id', id).attr('patternUnits', 'userSpaceOnUse').attr('width', size).attr('height', size).attr('patternTransform', 'rotate(45)');
    p.append('line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', size).attr('stroke', colour).attr('stroke-width', 2);
    if (cross) p.append('line').attr('x1', 0).attr('y1', 0).attr('x2', size).attr('y2', 0).attr('stroke', colour).attr('stroke-width', 2);
  };
  hatch(`${ids}-hatch`, 'rgba(0,0,0,0.45)', false, 6);
  hatch(`${ids}-cross`, 'rgba(0,0,0,0.6)', true, 6);
  hatch(`${ids}-violation`, VIOLATION_COLOUR, false, 5);
}
