// One self-contained HTML page for a run (issue 7: `lockstep run … --html FILE`, "like Porcupine's history
// view, for attaching to an incident ticket"): the viewer's script inline, the run embedded as JSON, a
// Content-Security-Policy that forbids every fetch, so the file opens from file:// offline and stays
// inert if a ticket system serves it. The viewer injects its own styles (viz/timeline/styles.ts).
//
// The policy allows the page's one script and its styles by hash, not 'unsafe-inline' (issue 18): a
// script that got into the page some other way (an escaping bug, an edited file) does not run, so it
// cannot read the run and navigate away with it.
import { ROOT_ELEMENT_ID, RUN_ELEMENT_ID } from '../../viz/report/page-ids.js';
import { TIMELINE_CSS } from '../../viz/timeline/timeline-css.js';
import { cspHashSource } from '../csp-hash.js';

/** The page's own style, as a <style> element (a style attribute would need 'unsafe-hashes'). */
export const PAGE_CSS = 'body{margin:16px;background:#fff}';

/**
 * No network: the one inline script (the viewer) by its hash; the page's style and the timeline's injected
 * stylesheet by theirs; images only data: URLs; nothing to connect to.
 */
export function reportCsp(inlineScript: string): string {
  return [
    "default-src 'none'",
    `script-src ${cspHashSource(inlineScript)}`,
    `style-src ${cspHashSource(PAGE_CSS)} ${cspHashSource(TIMELINE_CSS)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * What would make the page fetch something: a src/href/action attribute or a CSS url() with a scheme or
 * protocol-relative address, or an @import. writeReport refuses a page with one (the CSP would block it
 * anyway; this catches a viewer that came to depend on one). XML namespace strings are not fetches.
 */
export const EXTERNAL_REFERENCE = /(?:\b(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?\/\/)|(?:url\(\s*["']?\s*(?:https?:)?\/\/)|@import/i;

export interface ReportPage {
  readonly title: string;
  /** The run artifact as JSON text (bigints already decimal strings: scenarios/history.ts toJson). */
  readonly artifactJson: string;
  /** The viewer bundle (src/report/viewer-bundle.ts). */
  readonly viewerJs: string;
}

export function reportHtml(page: ReportPage): string {
  // The hash is of the script's text as written into the page, after escaping.
  const script = embedScript(page.viewerJs);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(reportCsp(script))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeText(page.title)}</title>`,
    `<style>${PAGE_CSS}</style>`,
    '</head>',
    '<body>',
    `<main id="${ROOT_ELEMENT_ID}"></main>`,
    `<script type="application/json" id="${RUN_ELEMENT_ID}">${embedJson(page.artifactJson)}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * JSON inside <script>: the HTML parser ends the element at the first `</script` whatever the JSON
 * means, and `<!--` can change how it reads the rest; escaping every `<` as \u003c (still the same JSON
 * string) rules both out. U+2028/U+2029 are escaped too, for any reader that evaluates it as script.
 */
export function embedJson(json: string): string {
  return json.replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A script's text inline: only `</script` (any case) can end it early; `<\/` means the same inside strings and regular expressions. */
export function embedScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}
