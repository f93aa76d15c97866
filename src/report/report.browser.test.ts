// The offline report in a real browser (issue 7): `lockstep run pause-test --html` written to a temp
// directory, opened from file:// with every other request aborted and counted, under the page's own
// Content-Security-Policy, which allows its script and styles by hash (issue 18). Screenshots go to
// test-artifacts/ (git-ignored).
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_VERIFIED_NOTICE } from '../../viz/report/report-notice.js';
import { ATTR } from '../../viz/timeline/dom-contract.js';
import { toJson } from '../../scenarios/history.js';
import { pauseTest } from '../../scenarios/pause-test.js';
import { runScenario } from '../../scenarios/runner.js';
import { BROWSER_SETUP_TIMEOUT_MS, launchChromium } from '../testing/chromium.js';
import { runCli } from '../testing/run-cli.js';
import { reportHtml } from './html.js';
import { REPO_ROOT, viewerBundle } from './viewer-bundle.js';

const SCREENSHOTS = join(REPO_ROOT, 'test-artifacts');

interface Opened {
  readonly page: Page;
  /** Every request the page made that was not for its own file. */
  readonly network: string[];
  readonly errors: string[];
}

/** Each securitypolicyviolation's directive, in window.cspViolations. */
const RECORD_CSP_VIOLATIONS = "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (event) => window.cspViolations.push(event.violatedDirective));";
/** Appends an inline script; true when it ran. */
const INJECT_INLINE_SCRIPT = "(async () => { const s = document.createElement('script'); s.textContent = 'window.injectedRan = true;'; document.body.append(s); await new Promise((done) => setTimeout(done, 0)); return window.injectedRan === true; })()";
/** The chart's border, which only the timeline's stylesheet gives it. */
const CHART_BORDER_STYLE = "getComputedStyle(document.querySelector('.lst-chart')).borderTopStyle";

interface SavedRun {
  readonly history: { grants: { holder: string; grantedAtMs: number }[]; writes: { holder: string; atMs: number; accepted: boolean }[] };
}

describe('lockstep run --html: the offline report', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium();
    dir = await mkdtemp(join(tmpdir(), 'lockstep-report-'));
    await mkdir(SCREENSHOTS, { recursive: true });
  }, BROWSER_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });

  async function open(file: string, options: { readonly untilDrawn?: boolean } = {}): Promise<Opened> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const network: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // As text: this file compiles without DOM types (the page's code runs in the browser).
    await page.addInitScript(RECORD_CSP_VIOLATIONS);
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      if (url === pathToFileURL(file).href) return route.continue();
      network.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
    if (options.untilDrawn !== false) await page.waitForSelector(`[${ATTR.lane}]`);
    return { page, network, errors };
  }

  const cspViolations = (page: Page): Promise<string[]> => page.evaluate<string[]>('window.cspViolations');

  it('renders pause-test offline: lanes, the fence rejecting the paused holder, every check ok; keys and clicks show details', async () => {
    const html = join(dir, 'r.html');
    const json = join(dir, 'r.json');
    const run = await runCli('run', 'pause-test', '--html', html, '--out', json);
    expect(run.code).toBe(0);
    expect(run.out.join('\n')).toContain(`report: ${html}`);
    // The artifact first: the default variant's fence rejects a write alice (paused past her TTL) makes after bob was granted the key.
    const saved = JSON.parse(await readFile(json, 'utf8')) as SavedRun;
    const bobGrantedAtMs = saved.history.grants.find((g) => g.holder.endsWith('/bob'))?.grantedAtMs ?? Number.POSITIVE_INFINITY;
    expect(saved.history.writes.filter((w) => w.holder.endsWith('/alice') && !w.accepted && w.atMs > bobGrantedAtMs)).toHaveLength(1);
    expect((await readFile(html, 'utf8')).length).toBeGreaterThan(50_000);

    const { page, network, errors } = await open(html);
    expect(network).toEqual([]);
    expect(errors).toEqual([]);
    const lanes = await page.locator(`[${ATTR.lane}]`).evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-lane')));
    expect(lanes).toEqual(expect.arrayContaining(['alice', 'bob', 'arbiter-1', 'etcd-1', 'ledger-db']));
    expect(await page.locator(`[${ATTR.lane}="ledger-db"] [${ATTR.kind}="fence-rejection"]`).count()).toBeGreaterThan(0);
    expect(await page.locator(`[${ATTR.lane}="alice"] [${ATTR.kind}="pause"]`).count()).toBe(1);
    expect(await page.locator(`[${ATTR.kind}="leader"]`).count()).toBeGreaterThan(0);
    expect(await page.locator(`[${ATTR.kind}="keepalive"]`).count()).toBeGreaterThan(0);
    const checks = await page.locator(`[${ATTR.check}]`).evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('data-check')}=${n.getAttribute('data-ok')}`));
    expect(checks).toEqual(['exclusion=true', 'token-order=true', 'belief=true', 'fence=true', 'deadline=true', 'audit-complete=true', 'raft-safety=true']);
    expect(await page.locator(`[${ATTR.violation}]`).count()).toBe(0);

    // Keyboard: focus the timeline, End selects the last event, ← the one before; the details follow.
    await page.focus('.lst-chart');
    await page.keyboard.press('End');
    expect(await page.locator(`[${ATTR.selected}]`).count()).toBe(1);
    const last = await page.locator('.lst-details').innerText();
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('.lst-details').innerText()).not.toBe(last);
    // A click on the fence rejection shows its token and that it was refused.
    await page.locator(`[${ATTR.kind}="fence-rejection"]`).last().click();
    const details = await page.locator('.lst-details').innerText();
    expect(details).toMatch(/fence rejection/);
    expect(details).toMatch(/accepted\s+false/);
    await page.screenshot({ path: join(SCREENSHOTS, 'report-pause-test.png'), fullPage: true });
    // The viewer and the timeline's stylesheet ran under a CSP that allows them by hash alone (issue 18).
    const csp = (await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content')) ?? '';
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.evaluate<string>(CHART_BORDER_STYLE)).toBe('solid');
    expect(await cspViolations(page)).toEqual([]);
    // A narrower window draws the chart again to fit, keeping the selection.
    const widthOf = (): Promise<number> => page.locator('.lst-chart svg').evaluate((svg) => Number(svg.getAttribute('width')));
    const wide = await widthOf();
    await page.setViewportSize({ width: 700, height: 1000 });
    await expect.poll(widthOf).toBeLessThan(wide - 100);
    expect(await page.locator(`[${ATTR.selected}][${ATTR.kind}="fence-rejection"]`).count()).toBe(1);
    expect(network).toEqual([]);
  });

  it("highlights the failing variant's violation: marks and check row carry data-violation, the page says where it looks", async () => {
    const listed = JSON.parse((await runCli('list', '--json')).out.at(-1) ?? '{}') as { scenarios: { name: string; variants: { name: string; expect: string }[] }[] };
    const failing = listed.scenarios.find((s) => s.name === 'pause-test')?.variants.find((v) => v.expect === 'violation')?.name;
    expect(failing).toBeDefined();
    const html = join(dir, 'violation.html');
    const run = await runCli('run', 'pause-test', '--variant', failing as string, '--html', html, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out.at(-1) ?? '{}')).toMatchObject({ ok: false, html });

    const { page, network, errors } = await open(html);
    expect([network, errors]).toEqual([[], []]);
    const row = page.locator(`[${ATTR.check}][${ATTR.violation}]`);
    expect(await row.count()).toBe(1);
    expect(await row.getAttribute(ATTR.check)).toBe('fence');
    expect(await row.getAttribute(ATTR.ok)).toBe('false');
    expect(await row.innerText()).toMatch(/two holders at once/);
    expect(await page.locator('.lst-notice').allInnerTexts()).toEqual([NOT_VERIFIED_NOTICE, expect.stringMatching(/^Failing checks: fence\. The view is zoomed to the first violation/)]);
    const marks = page.locator(`[${ATTR.kind}][${ATTR.violation}]`);
    expect(await marks.count()).toBeGreaterThanOrEqual(2);
    const kinds = new Set(await marks.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-kind'))));
    expect([...kinds].sort()).toEqual(['hold', 'write']);
    // The involved events are listed as buttons; one selects its mark.
    await row.locator('button').first().click();
    expect(await page.locator(`[${ATTR.selected}][${ATTR.violation}]`).count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, 'report-violation.png'), fullPage: true });
  });

  it('draws a 10-simulated-minute run with 100,000 keepalives as a bounded number of marks, at every zoom', async () => {
    const run = await runScenario(pauseTest, undefined, '1', { yieldToHost: () => new Promise((done) => setImmediate(done)), timeline: true });
    const kept = run.timeline?.records ?? [];
    const keepalives = Array.from({ length: 100_000 }, (_unused, i) => ({
      index: kept.length + i,
      timeMs: 25_000 + i * 5.75,
      process: i % 2 === 0 ? 'alice' : 'bob',
      kind: 'net.send',
      fields: { id: i, to: 'arbiter-1', type: 'arbiter.call:keepAlive' },
    }));
    const long = { ...run, simulatedMs: 600_000, timeline: { ...(run.timeline ?? { dropped: 0, maxRecords: 0, processes: [] }), records: [...kept, ...keepalives] } };
    const html = join(dir, 'long.html');
    await writeFile(html, reportHtml({ title: 'ten minutes', artifactJson: toJson(long), viewerJs: await viewerBundle() }));

    const { page, network, errors } = await open(html);
    expect([network, errors]).toEqual([[], []]);
    const drawn = (): Promise<number> => page.locator(`[${ATTR.kind}]`).count();
    const counts = [await drawn()];
    // Every keepalive is in a drawn mark: the merged ones say how many they stand for.
    const shown = await page.locator(`[${ATTR.kind}="keepalive"]`).evaluateAll((nodes) => nodes.reduce((n, node) => n + Number(node.getAttribute('data-count') ?? '1'), 0));
    expect(shown).toBe(100_000 + kept.filter((r) => r.kind === 'net.send').length);
    await page.focus('.lst-chart');
    for (let zoom = 0; zoom < 8; zoom += 1) {
      await page.keyboard.press('+');
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
      counts.push(await drawn());
    }
    expect(Math.max(...counts)).toBeLessThan(2_000);
    // The zoom did zoom: the axis now spans about 600 s / 2^8.
    const ticks = await page.locator('.lst-axis .tick text').evaluateAll((nodes) => nodes.map((n) => n.textContent ?? ''));
    expect(ticks.length).toBeGreaterThan(3);
    expect(ticks.every((t) => / ms$| s$/.test(t))).toBe(true);
  });

  it("runs no script but its own: an injected inline script is refused, and so is the viewer once its text is altered (issue 18)", async () => {
    const html = join(dir, 'csp.html');
    expect((await runCli('run', 'pause-test', '--html', html)).code).toBe(0);
    const { page, errors } = await open(html);
    expect(await page.evaluate<boolean>(INJECT_INLINE_SCRIPT)).toBe(false);
    expect(await cspViolations(page)).toEqual(['script-src-elem']);
    expect(errors).toEqual([]);

    // The same page with one character of the viewer changed: its hash no longer matches, so nothing runs.
    const text = await readFile(html, 'utf8');
    const viewerStart = text.lastIndexOf('<script>') + '<script>'.length;
    const altered = join(dir, 'altered.html');
    await writeFile(altered, `${text.slice(0, viewerStart)} ${text.slice(viewerStart)}`);
    const tampered = await open(altered, { untilDrawn: false });
    await tampered.page.waitForFunction('window.cspViolations.length > 0');
    expect(await cspViolations(tampered.page)).toEqual(['script-src-elem']);
    expect(await tampered.page.locator(`[${ATTR.lane}]`).count()).toBe(0);
  });
});
