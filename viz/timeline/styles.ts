// The timeline's stylesheet, injected from TypeScript once per document so the offline report needs no
// CSS file (issue 7). The text is timeline-css.ts's; a page's CSP allows it by its hash (issue 18).
import { TIMELINE_CSS } from './timeline-css.js';

export { TIMELINE_CSS };

export const STYLE_ELEMENT_ID = 'lockstep-timeline-styles';

/** Adds the stylesheet to the document unless it is there already. */
export function ensureStyles(doc: Document): void {
  if (doc.getElementById(STYLE_ELEMENT_ID) !== null) return;
  const style = doc.createElement('style');
  style.id = STYLE_ELEMENT_ID;
  style.textContent = TIMELINE_CSS;
  doc.head.appendChild(style);
}
