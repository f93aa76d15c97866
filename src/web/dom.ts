// A small element builder for the workbench's forms and tables: the views are mostly static markup
// with a few live regions, so a framework would cost more than it saves.

type Attrs = Readonly<Record<string, string | number | boolean | undefined>>;
type Child = Node | string | null | undefined | false;

/** Creates an element; an attribute set to false or undefined is left off, true sets it empty. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: readonly Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** A labelled form control: the label's for= points at the control's id (screen readers read it). */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLDivElement {
  const hintId = hint === undefined ? undefined : `${control.id}-hint`;
  if (hintId !== undefined) control.setAttribute('aria-describedby', hintId);
  return el('div', { class: 'field' }, el('label', { for: control.id }, label), control, hint === undefined ? null : el('span', { class: 'hint', id: hintId }, hint));
}

export function numberInput(id: string, value: number, min: number, max: number, step = 1): HTMLInputElement {
  return el('input', { id, name: id, type: 'number', value, min, max, step, required: true, inputmode: 'numeric' });
}

/** A table of figures: a caption, a header row of column names (each saying simulated or analytic), the rows. */
export function figuresTable(id: string, caption: string, columns: readonly string[], rows: readonly HTMLTableRowElement[]): HTMLTableElement {
  return el('table', { class: 'figures', id }, el('caption', {}, caption), el('thead', {}, el('tr', {}, ...columns.map((h) => el('th', { scope: 'col' }, h)))), el('tbody', {}, ...rows));
}

/** Saves text as a file download (Save artifact). */
export function download(fileName: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download by the time the next task runs.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
