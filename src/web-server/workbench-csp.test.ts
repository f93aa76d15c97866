import { describe, expect, it } from 'vitest';
import { TIMELINE_CSS } from '../../viz/timeline/timeline-css.js';
import { cspHashSource } from '../csp-hash.js';
import { parseAllowedOrigin, workbenchCsp, workbenchHeaders } from './workbench-csp.js';

const directives = (csp: string): Map<string, string[]> => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name ?? '', values]));

describe("the workbench's Content-Security-Policy (issue 18)", () => {
  it("allows only the app's own files, the timeline's stylesheet by hash, and no inline script, eval or framing", () => {
    const csp = directives(workbenchCsp());
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('worker-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'", cspHashSource(TIMELINE_CSS)]);
    expect(csp.get('connect-src')).toEqual(["'self'", 'data:']);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(workbenchCsp()).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(workbenchHeaders()).toMatchObject({ 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
  });

  it('adds the origins lockstep web is given to connect-src, and nothing else', () => {
    expect(directives(workbenchCsp(['https://artifacts.example.org', 'http://127.0.0.1:8080'])).get('connect-src')).toEqual(["'self'", 'data:', 'https://artifacts.example.org', 'http://127.0.0.1:8080']);
  });

  it.each([
    ['https://artifacts.example.org', 'https://artifacts.example.org'],
    ['https://artifacts.example.org/', 'https://artifacts.example.org'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
  ])('reads --allow-origin %j as %j', (text, origin) => {
    expect(parseAllowedOrigin(text)).toEqual({ origin });
  });

  it.each(['https://artifacts.example.org/runs/', 'ftp://artifacts.example.org', 'artifacts.example.org', '*', "https://a.example; script-src 'unsafe-inline'", 'https://a.example?x=1', ''])('refuses --allow-origin %j, saying what an origin is', (text) => {
    expect(parseAllowedOrigin(text)).toEqual({ problem: expect.stringMatching(/must be an http\(s\) origin: scheme:\/\/host\[:port\] and nothing after it/) });
  });
});
