import { describe, expect, it } from 'vitest';
import { ROOT_ELEMENT_ID, RUN_ELEMENT_ID } from '../../viz/report/page-ids.js';
import { TIMELINE_CSS } from '../../viz/timeline/timeline-css.js';
import { cspHashSource } from '../csp-hash.js';
import { EXTERNAL_REFERENCE, PAGE_CSS, embedJson, embedScript, reportCsp, reportHtml } from './html.js';

/** What a browser's HTML parser takes as the text of the first <script> with this opening tag: up to the first `</script`. */
function scriptText(html: string, openingTag: string): string {
  const start = html.indexOf(openingTag);
  expect(start).toBeGreaterThanOrEqual(0);
  const from = start + openingTag.length;
  const end = html.toLowerCase().indexOf('</script', from);
  return html.slice(from, end);
}

describe('report HTML', () => {
  const hostile = { note: '</script><script>alert(1)</script>', comment: '<!-- <script>', lines: 'a\u2028b\u2029c', title: '<b>&' };
  const html = reportHtml({ title: 'run <pause-test> & co', artifactJson: JSON.stringify(hostile), viewerJs: 'window.viewer = "</script><!--";' });

  it('embeds the run so that it parses back unchanged, even with </script> and <!-- inside a string', () => {
    const text = scriptText(html, `<script type="application/json" id="${RUN_ELEMENT_ID}">`);
    expect(text).not.toMatch(/<\/script|<!--/i);
    expect(JSON.parse(text)).toEqual(hostile);
  });

  it('inlines the viewer so that the parser does not end it early, and it means the same', () => {
    const text = scriptText(html, '<script>');
    expect(text).toBe(embedScript('window.viewer = "</script><!--";'));
    const window: { viewer?: string } = {};
    new Function('window', text)(window);
    expect(window.viewer).toBe('</script><!--');
  });

  it('escapes the title, has the mount point, and forbids every fetch by its Content-Security-Policy', () => {
    expect(html).toContain('<title>run &lt;pause-test&gt; &amp; co</title>');
    expect(html).toContain(`<main id="${ROOT_ELEMENT_ID}"></main>`);
    const csp = reportCsp(embedScript('window.viewer = "</script><!--";'));
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${csp}">`);
    expect(csp).toMatch(/default-src 'none'/);
    expect(html).not.toMatch(EXTERNAL_REFERENCE);
  });

  it("allows the page's script and styles by hash, never 'unsafe-inline' (issue 18)", () => {
    const csp = /content="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(csp).not.toContain('unsafe-inline');
    // The hash is of the script as written into the page (escaped), which is what the browser hashes.
    const script = scriptText(html, '<script>');
    expect(csp).toContain(`script-src ${cspHashSource(script)};`);
    expect(csp).toContain(`style-src ${cspHashSource(PAGE_CSS)} ${cspHashSource(TIMELINE_CSS)};`);
    expect(html).toContain(`<style>${PAGE_CSS}</style>`);
    expect(html).not.toMatch(/\sstyle=/);
    // Its negative control: another script's hash is not in the policy.
    expect(csp).not.toContain(cspHashSource(`${script};alert(1)`));
  });

  it('escapes only what must be: embedJson keeps JSON meaning', () => {
    const json = JSON.stringify({ a: '<', b: ['</SCRIPT>'] });
    expect(JSON.parse(embedJson(json))).toEqual({ a: '<', b: ['</SCRIPT>'] });
    expect(embedJson(json)).not.toContain('<');
  });

  it('the reference pattern finds the external fetches it must (so its silence above means something)', () => {
    for (const bad of ['<script src="https://cdn.example/d3.js">', '<link href=//fonts.example/x.css>', 'a{background:url("http://x/y.png")}', '@import "x.css";']) expect(bad).toMatch(EXTERNAL_REFERENCE);
    expect('document.createElementNS("http://www.w3.org/2000/svg","svg")').not.toMatch(EXTERNAL_REFERENCE);
  });
});
