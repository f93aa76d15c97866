// The four views as tabs (WAI-ARIA tabs pattern): one tab stop for the tab list, arrow keys, Home and
// End move between tabs, the URL's #hash names the open view so a link or a reload keeps it.

export interface TabSpec {
  readonly id: string;
  readonly label: string;
  readonly panel: HTMLElement;
  /** Called each time the tab is shown (a view can draw what needs its size then). */
  readonly onShow?: () => void;
}

export class Tabs {
  readonly element: HTMLElement;
  private readonly buttons: HTMLButtonElement[];
  private current = '';

  constructor(private readonly specs: readonly TabSpec[]) {
    this.element = document.createElement('div');
    this.element.setAttribute('role', 'tablist');
    this.element.setAttribute('aria-label', 'Workbench views');
    this.element.className = 'tabs';
    this.buttons = specs.map((spec) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.id = `tab-${spec.id}`;
      button.setAttribute('role', 'tab');
      button.setAttribute('aria-controls', `view-${spec.id}`);
      button.textContent = spec.label;
      button.addEventListener('click', () => this.show(spec.id, true));
      spec.panel.id = `view-${spec.id}`;
      spec.panel.setAttribute('role', 'tabpanel');
      spec.panel.setAttribute('aria-labelledby', button.id);
      spec.panel.tabIndex = -1;
      return button;
    });
    this.element.append(...this.buttons);
    this.element.addEventListener('keydown', (event) => this.onKey(event));
  }

  get selected(): string {
    return this.current;
  }

  show(id: string, focus = false): void {
    const index = this.specs.findIndex((s) => s.id === id);
    if (index < 0) return;
    this.current = id;
    this.specs.forEach((spec, i) => {
      const on = i === index;
      this.buttons[i]!.setAttribute('aria-selected', String(on));
      this.buttons[i]!.tabIndex = on ? 0 : -1;
      spec.panel.hidden = !on;
    });
    if (focus) this.buttons[index]!.focus();
    if (location.hash !== `#${id}`) history.replaceState(null, '', `${location.pathname}${location.search}#${id}`);
    this.specs[index]!.onShow?.();
  }

  private onKey(event: KeyboardEvent): void {
    const index = this.specs.findIndex((s) => s.id === this.current);
    const last = this.specs.length - 1;
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    this.show(this.specs[next]!.id, true);
  }
}
