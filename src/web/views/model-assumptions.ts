// "What the model assumes" under the quorum figures: each topology's setting from its data (where the
// clients and arbiter sit, which etcd member the arbiter talks to, the endpoints the runs measured
// through), then docs/planner.md's own section on the model's assumptions, bundled as text (vite ?raw)
// so the page and the docs cannot drift apart.
import plannerDoc from '../../../docs/planner.md?raw';
import { type DocBlock, docSection } from '../doc-section.js';
import { el } from '../dom.js';
import type { TopologyPricing } from '../workbench-api.js';
import { settingLine } from './quorum-reading.js';

const SECTION = 'What the model assumes';

function block(b: DocBlock): HTMLElement {
  const parts = b.parts.map((p) => (p.kind === 'strong' ? el('strong', {}, p.text) : p.kind === 'code' ? el('code', {}, p.text) : p.text));
  return el(b.kind === 'item' ? 'li' : 'p', {}, ...parts);
}

export function modelAssumptions(priced: readonly TopologyPricing[]): HTMLElement {
  const blocks = docSection(plannerDoc, SECTION, 'docs/planner.md');
  const items = blocks.filter((b) => b.kind === 'item');
  return el(
    'section',
    { class: 'assumptions', id: 'quorum-assumptions', 'aria-labelledby': 'quorum-assumptions-heading' },
    el('h2', { id: 'quorum-assumptions-heading' }, SECTION),
    el('ul', { class: 'settings' }, ...priced.map((t) => el('li', { 'data-topology': t.name }, settingLine(t)))),
    el('ul', { class: 'doc' }, ...items.map(block)),
    ...blocks.filter((b) => b.kind === 'paragraph').map(block),
    el('p', { class: 'hint' }, 'From docs/planner.md: the model lockstep quorum prices, whose output says the same in short under "assumes".'),
  );
}
