// A section of the project's own Markdown docs shown in the page, so the page and the docs say one
// thing: the quorum view shows docs/planner.md's "What the model assumes" (the model's stated
// assumptions, which `lockstep quorum` prints in short) rather than a retyped copy. Only what those
// sections use is read: bullet items (with their continuation lines) and plain paragraphs, **strong** and
// `code` inline.

export interface InlinePart {
  readonly kind: 'text' | 'strong' | 'code';
  readonly text: string;
}

export interface DocBlock {
  readonly kind: 'item' | 'paragraph';
  readonly parts: readonly InlinePart[];
}

/** The blocks under the heading that starts with `heading`, up to the next heading of any level. */
export function docSection(markdown: string, heading: string, source: string): DocBlock[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').startsWith(heading));
  if (start < 0) throw new Error(`${source} has no heading starting "${heading}"; the page shows that section: restore the heading or change the page`);
  const blocks: Array<{ kind: DocBlock['kind']; text: string }> = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    const last = blocks[blocks.length - 1];
    if (line.trim() === '') blocks.push({ kind: 'paragraph', text: '' });
    else if (line.startsWith('- ')) blocks.push({ kind: 'item', text: line.slice(2).trim() });
    else if (last !== undefined && last.text !== '') last.text += ` ${line.trim()}`;
    else blocks.push({ kind: 'paragraph', text: line.trim() });
  }
  return blocks.filter((b) => b.text !== '').map((b) => ({ kind: b.kind, parts: inlineParts(b.text) }));
}

export function inlineParts(text: string): InlinePart[] {
  return text
    .split(/(\*\*[^*]+\*\*|`[^`]+`)/)
    .filter((piece) => piece !== '')
    .map((piece) => (piece.startsWith('**') && piece.endsWith('**') && piece.length > 4 ? { kind: 'strong', text: piece.slice(2, -2) } : piece.startsWith('`') && piece.endsWith('`') && piece.length > 2 ? { kind: 'code', text: piece.slice(1, -1) } : { kind: 'text', text: piece }));
}
