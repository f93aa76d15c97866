// The timeline's stylesheet as text, without DOM types, so node code can hash it for a
// Content-Security-Policy (src/report/html.ts, src/web-server/workbench-csp.ts allow it by its hash:
// issue 18). Injected by styles.ts ensureStyles. Class names are prefixed lst- so the view can sit inside
// another page.
import { INK, KIND_STYLES, PAPER, VIOLATION_COLOUR } from './palette.js';

export const TIMELINE_CSS = `
.lst-timeline { font: 14px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif; color: ${INK}; background: ${PAPER}; }
.lst-timeline h2 { font-size: 18px; margin: 0 0 4px; }
.lst-timeline h3 { font-size: 15px; margin: 12px 0 4px; }
.lst-notice { margin: 4px 0; padding: 4px 8px; border-left: 4px solid ${INK}; background: #F2F2F2; }
.lst-body { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.lst-chart { flex: 1 1 640px; min-width: 0; overflow: hidden; border: 1px solid #767676; outline: none; position: relative; }
.lst-chart:focus-visible { box-shadow: 0 0 0 3px #0B57D0; }
.lst-help { font-size: 12px; margin: 2px 6px; }
.lst-chart svg { display: block; user-select: none; cursor: grab; }
.lst-chart svg:active { cursor: grabbing; }
.lst-lane-bg { fill: #FAFAFA; stroke: #DDDDDD; }
.lst-lane-label { font-size: 12px; fill: ${INK}; dominant-baseline: middle; }
.lst-axis text { font-size: 11px; fill: ${INK}; }
.lst-axis path, .lst-axis line { stroke: #767676; }
.lst-mark { cursor: pointer; stroke: rgba(0,0,0,0.35); stroke-width: 0.5; }
.lst-mark-text { font-size: 11px; pointer-events: none; dominant-baseline: middle; }
${Object.entries(KIND_STYLES).flatMap(([kind, style]) => (style.outline === undefined ? [] : [`.lst-mark[data-kind="${kind}"] { stroke: ${style.outline}; stroke-width: 1.5; }`])).join('\n')}
.lst-mark[data-violation] { stroke: ${VIOLATION_COLOUR}; stroke-width: 3; stroke-dasharray: 5 2; }
/* Last, so a selected violation shows as selected; its hatch still marks it a violation. */
.lst-mark[data-selected] { stroke: ${INK}; stroke-width: 3; stroke-dasharray: none; }
.lst-aside { flex: 0 1 360px; min-width: 260px; }
.lst-checks ul { list-style: none; padding: 0; margin: 0; }
.lst-check { padding: 4px 6px; margin-bottom: 4px; border-left: 4px solid #3B7D23; }
.lst-check[data-ok="false"] { border-left: 6px double ${VIOLATION_COLOUR}; background: #FCEEEE; }
.lst-check-verdict { font-weight: 600; margin-right: 6px; }
.lst-check-detail { font-size: 12px; word-break: break-word; }
.lst-violation { font-size: 12px; margin: 4px 0 0 8px; }
.lst-violation summary { cursor: pointer; font-weight: 600; }
.lst-violation button, .lst-details button { font: inherit; font-size: 12px; text-align: left; background: none; border: 1px solid #767676; border-radius: 3px; margin: 2px 2px 0 0; padding: 1px 4px; cursor: pointer; color: ${INK}; }
.lst-violation button:focus-visible { outline: 3px solid #0B57D0; }
.lst-details dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 8px; margin: 0; font-size: 12px; }
.lst-details dt { font-weight: 600; }
.lst-details dd { margin: 0; word-break: break-all; }
.lst-legend ul { list-style: none; padding: 0; margin: 0; font-size: 12px; }
.lst-legend li { display: flex; align-items: center; gap: 6px; margin: 2px 0; }
`;
