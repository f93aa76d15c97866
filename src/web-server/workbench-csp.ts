// The headers `lockstep web` serves the workbench with (issue 18): a Content-Security-Policy under which
// the built app runs (its scripts, module worker and stylesheet are files of its own origin; the run
// timeline injects one stylesheet, allowed by its hash) and nothing else does: no inline or injected
// script, no eval, no plugin, no <base>, no form posting elsewhere, and no other site framing the page
// (frame-ancestors 'none', with X-Frame-Options for browsers before CSP 2). Fetches go to this origin and
// to data: URLs (a ?run= artifact carried in its link, opened when the reader chooses to), and to the
// origins the operator names with --allow-origin, for ?run= links to an artifact store.
import { TIMELINE_CSS } from '../../viz/timeline/timeline-css.js';
import { cspHashSource } from '../csp-hash.js';

export function workbenchCsp(allowedOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "worker-src 'self'",
    `style-src 'self' ${cspHashSource(TIMELINE_CSS)}`,
    "img-src 'self' data:",
    ['connect-src', "'self'", 'data:', ...allowedOrigins].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function workbenchHeaders(allowedOrigins: readonly string[] = []): Readonly<Record<string, string>> {
  return {
    'content-security-policy': workbenchCsp(allowedOrigins),
    'x-frame-options': 'DENY',
    // A ?run= fetch elsewhere must not tell that server which artifact link the reader opened.
    'referrer-policy': 'no-referrer',
  };
}

/** An --allow-origin value, as CSP needs it: scheme://host[:port], http(s), nothing after; a message naming the rule otherwise. */
export function parseAllowedOrigin(text: string): { origin: string } | { problem: string } {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const origin = url?.origin;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || origin === undefined || text.replace(/\/$/, '') !== origin) {
    return { problem: `--allow-origin ${JSON.stringify(text)} must be an http(s) origin: scheme://host[:port] and nothing after it, e.g. https://artifacts.example.org` };
  }
  return { origin };
}
