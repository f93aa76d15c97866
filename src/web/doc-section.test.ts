import { describe, expect, it } from 'vitest';
import plannerDoc from '../../docs/planner.md?raw';
import { docSection, inlineParts } from './doc-section.js';

describe('docSection', () => {
  const markdown = ['# Title', 'intro', '### What the model assumes (printed)', '- **First** rule, with', '  `a code` continuation.', '- Second rule.', '', 'A closing', 'paragraph.', '### Figures', '- not in the section'].join('\n');

  it('reads the items and paragraphs under a heading up to the next one, continuation lines joined', () => {
    const blocks = docSection(markdown, 'What the model assumes', 'doc.md');
    expect(blocks.map((b) => [b.kind, b.parts.map((p) => p.text).join('')])).toEqual([
      ['item', 'First rule, with a code continuation.'],
      ['item', 'Second rule.'],
      ['paragraph', 'A closing paragraph.'],
    ]);
  });

  it('refuses a heading the document does not have, naming the source and the heading', () => {
    expect(() => docSection(markdown, 'What it promises', 'docs/planner.md')).toThrow(/docs\/planner\.md has no heading starting "What it promises"/);
  });

  it('splits strong and code spans out of the text', () => {
    expect(inlineParts('a **b** `c` d')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'strong', text: 'b' },
      { kind: 'text', text: ' ' },
      { kind: 'code', text: 'c' },
      { kind: 'text', text: ' d' },
    ]);
  });

  it("finds the quorum model's assumptions in docs/planner.md, the section the quorum view shows", () => {
    const blocks = docSection(plannerDoc, 'What the model assumes', 'docs/planner.md');
    expect(blocks.filter((b) => b.kind === 'item').length).toBeGreaterThanOrEqual(2);
    expect(blocks.every((b) => b.parts.every((p) => !p.text.includes('**') && !p.text.startsWith('`')))).toBe(true);
  });
});
