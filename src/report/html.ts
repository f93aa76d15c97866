// One self-contained HTML page for a run (issue 7: `lockstep run … --html FILE`, "like Porcupine's history
// view, for attaching to an incident ticket"): the viewer's script inline, the run embedded as JSON, a
// Content-Security-Policy that forbids every fetch, so the file opens from file:// offline and stays
// inert if a ticket system serves it. The viewer injects its own styles (viz/timeline/styles.ts).
import { ROOT_ELEMENT_ID, RUN_ELEMENT_ID } from '../../viz/report/page-ids.js';

/** No network: scripts and styles only inline, images only data: URLs, nothing to connect to. */
export const REPORT_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

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
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(REPORT_CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeText(page.title)}</title>`,
    '</head>',
    '<body style="margin:16px;background:#fff">',
    `<main id="${ROOT_ELEMENT_ID}"></main>`,
    `<script type="application/json" id="${RUN_ELEMENT_ID}">${embedJson(page.artifactJson)}</script>`,
    `<script>${embedScript(page.viewerJs)}</script>`,
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
