// The workbench in a real browser (issue 7): Debian's Chromium driven by playwright-core. The app is
// built into a temporary directory and served by `lockstep web`'s own code on a free port. Every test
// fails on a page error or a console error, which includes every Content-Security-Policy violation (the
// server sends the workbench's CSP: issue 18). Screenshots of each view go to test-artifacts/ (git-ignored).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../scenarios/history.js';
import { scenarioNamed } from '../../scenarios/registry.js';
import { runScenario } from '../../scenarios/runner.js';
import { ATTR, type MarkKind } from '../../viz/timeline/dom-contract.js';
import type { CliIo } from '../cli-io.js';
import { startWorkbench } from '../commands/web.js';
import { BROWSER_SETUP_TIMEOUT_MS, launchChromium } from '../testing/chromium.js';
import { FORGED_REPLAY, forgedArtifactText, honestFailingRun } from '../testing/forged-artifact.js';
import { REPO_DIR } from '../web-server/build-workbench.js';
import { type StaticServer, startStaticServer } from '../web-server/static-server.js';
import { formatFaultSchedule } from '../../scenarios/fault-schedule.js';

const SCREENSHOTS = join(REPO_DIR, 'test-artifacts');
const FENCE_REJECTION: MarkKind = 'fence-rejection';
const FAILING_ARTIFACT = 'pause-test-unfenced-1.json';
/** Issue 18's forged artifact (src/testing/forged-artifact.ts): a failing run whose checks say ok. */
const FORGED_ARTIFACT = 'incident-4711.json';
const FORGED_WITH_TIMELINE = 'forged-with-timeline.json';
/** A failing run whose fault schedule names a process the scenario does not have: the page cannot replay it. */
const UNREPLAYABLE_ARTIFACT = 'unreplayable.json';

let outDir: string;
let server: StaticServer;
/** The same build served by a second `lockstep web`, started with --allow-origin for the artifact store below. */
let allowingServer: StaticServer;
/** Another origin (another port of 127.0.0.1) serving the forged artifact with CORS, as an artifact store would. */
let store: { server: Server; origin: string; requests: string[] };
let browser: Browser;
let forgedText: string;
const buildLog: string[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'lockstep-workbench-'));
  const io: CliIo = { out: (t) => void buildLog.push(t), err: (t) => void buildLog.push(t) };
  const started = await startWorkbench({ port: '0', host: '127.0.0.1', rebuild: true, json: true, outDir }, io);
  if (typeof started === 'number') throw new Error(`lockstep web failed (exit ${started}): ${buildLog.join('\n')}`);
  server = started;
  // A failing run, saved as the CLI saves it and without a timeline: the page has to replay it to draw one.
  const failing = await runScenario(scenarioNamed('pause-test'), 'unfenced', '1', { yieldToHost: () => new Promise((done) => setImmediate(done)) });
  await writeFile(join(outDir, FAILING_ARTIFACT), toJson(failing, 2));
  forgedText = forgedArtifactText(await honestFailingRun());
  await writeFile(join(outDir, FORGED_ARTIFACT), forgedText);
  await writeFile(join(outDir, FORGED_WITH_TIMELINE), forgedArtifactText(await honestFailingRun({ timeline: true }), { keepTimeline: true }));
  await writeFile(join(outDir, UNREPLAYABLE_ARTIFACT), toJson({ ...failing, faults: [{ atMs: 1000, kind: 'pause', target: 'mallory' }] }, 2));
  store = await startArtifactStore(forgedText);
  const again = await startWorkbench({ port: '0', host: '127.0.0.1', json: true, outDir, allowOrigin: [store.origin] }, { out: () => undefined, err: (t) => void buildLog.push(t) });
  if (typeof again === 'number') throw new Error(`lockstep web --allow-origin failed (exit ${again}): ${buildLog.join('\n')}`);
  allowingServer = again;
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await allowingServer?.close();
  if (store !== undefined) await new Promise((done) => store.server.close(done));
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

/** Serves `text` at /incident-4711.json on a free port with `access-control-allow-origin: *`, recording each request's path. */
async function startArtifactStore(text: string): Promise<{ server: Server; origin: string; requests: string[] }> {
  const requests: string[] = [];
  const http = createServer((request, response) => {
    requests.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    response.end(text);
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  return { server: http, origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, requests };
}

/**
 * Opens the workbench and collects page errors and console errors, which every test asserts are none,
 * and the page's CSP violations (`securitypolicyviolation` events), which the CSP test reads.
 */
async function open(path = '', on: StaticServer = server): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.assign(window, { cspViolations: seen });
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(new URL(path, on.url).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return { page, errors };
}

const cspViolations = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `workbench-${name}.png`), fullPage: true });
}

const checkRows = `#run-result tr[${ATTR.check}]`;

describe('the web workbench in Chromium', () => {
  it('was built and is served with the JavaScript MIME type the module worker needs', async () => {
    expect(buildLog.join('\n')).toMatch(/built \d+ files/);
    const html = await (await fetch(server.url)).text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(new URL(script!, server.url))).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('runs pause-test (fenced) in the worker: every check ok, and the timeline shows the fence rejection', async () => {
    const { page, errors } = await open();
    expect(await page.inputValue('#scenario')).toBe('pause-test');
    expect(await page.inputValue('#variant')).toBe('fenced');
    await page.click('form.run-form button[type=submit]');
    await page.waitForSelector(checkRows, { timeout: 30_000 });
    const checks = await page.locator(checkRows).evaluateAll((rows, ok) => rows.map((r) => [r.getAttribute('data-check'), r.getAttribute(ok)]), ATTR.ok);
    expect(checks.length).toBeGreaterThanOrEqual(5);
    expect(checks.filter(([, ok]) => ok !== 'true')).toEqual([]);
    await screenshot(page, 'runner');
    const shownHash = await page.getAttribute('#run-result [data-trace-hash]', 'data-trace-hash');
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save artifact' }).click()]);
    expect(saved.suggestedFilename()).toBe('pause-test-fenced-seed-1.json');
    const savedArtifact = JSON.parse(await readFile(await saved.path(), 'utf8')) as { format: string; traceHash: string; timeline?: unknown };
    expect([savedArtifact.format, savedArtifact.traceHash, savedArtifact.timeline !== undefined]).toEqual(['lockstep.run/1', shownHash, true]);
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.waitForSelector('#run-result .note');
    expect(await page.textContent('#run-result .note')).toMatch(/^Replay of a run in this page, from its seed and fault schedule in this page: same trace hash [0-9a-f]{16}; the artifact's verdict \(ok\) and checks are the replay's, so the run is reproduced exactly/);
    expect(await page.getAttribute('#run-result .run-result', 'data-verified')).toBe('reproduced');
    await page.getByRole('button', { name: 'Open in timeline' }).click();
    const rejections = page.locator(`#timeline [${ATTR.kind}="${FENCE_REJECTION}"]`);
    await rejections.first().waitFor({ state: 'attached', timeout: 30_000 });
    expect(await rejections.count()).toBeGreaterThan(0);
    expect(await page.locator(`#timeline [${ATTR.violation}]`).count()).toBe(0);
    await screenshot(page, 'timeline');
    expect(errors).toEqual([]);
  });

  it("shows the variant's fault schedule; an edited one runs (the artifact keeps it, the trace differs, Save and Replay keep it, the replay command copies); a bad one is refused naming the field", async () => {
    const { page, errors } = await open();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    await page.waitForSelector('#faults-status[data-schedule="own"]', { timeout: 30_000 });
    const own = JSON.parse(await page.inputValue('#faults')) as Array<{ kind: string; target: string }>;
    expect(own.map((f) => [f.kind, f.target])).toEqual([['pause', 'alice'], ['resume', 'alice']]);
    const shownHash = (): Promise<string | null> => page.getAttribute('#run-result [data-trace-hash]', 'data-trace-hash');
    await page.click('form.run-form button[type=submit]');
    await page.waitForSelector(checkRows, { timeout: 30_000 });
    const ownHash = await shownHash();
    expect(await page.textContent('#replay-command')).toBe('lockstep run pause-test --seed 1');

    // A pause shorter than the 5 s TTL instead of the variant's 15 s one.
    const edited = [{ atMs: 1000, kind: 'pause', target: 'alice' }, { atMs: 3000, kind: 'resume', target: 'alice' }];
    await page.fill('#faults', formatFaultSchedule(edited));
    expect(await page.getAttribute('#faults-status', 'data-schedule')).toBe('edited');
    await page.click('form.run-form button[type=submit]');
    await page.waitForFunction((before) => document.querySelector('#run-result [data-trace-hash]')?.getAttribute('data-trace-hash') !== before, ownHash, { timeout: 30_000 });
    const editedHash = await shownHash();
    expect(editedHash).not.toBe(ownHash);
    expect(await page.locator('#run-faults li').allTextContents()).toEqual(['1000 ms: pause alice', '3000 ms: resume alice']);
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save artifact' }).click()]);
    const savedArtifact = JSON.parse(await readFile(await saved.path(), 'utf8')) as { faults: unknown; traceHash: string; replay: string };
    expect([savedArtifact.faults, savedArtifact.traceHash]).toEqual([edited, editedHash]);
    expect(savedArtifact.replay).toBe(`lockstep replay ${saved.suggestedFilename()}`);
    expect(await page.textContent('#replay-command')).toBe(savedArtifact.replay);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.waitForSelector('p.replay .hint:text("copied")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(savedArtifact.replay);
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.waitForSelector('#run-result .note');
    expect(await page.textContent('#run-result .note')).toMatch(/same trace hash [0-9a-f]{16}; .* so the run is reproduced exactly/);
    expect([await shownHash(), await page.locator('#run-faults li').count()]).toEqual([editedHash, 2]);
    expect(await page.textContent('#replay-command')).toBe(savedArtifact.replay);
    await screenshot(page, 'runner-schedule');

    await page.fill('#faults', '[{"atMs": 1000, "kind": "pause", "target": "carol"}]');
    await page.click('form.run-form button[type=submit]');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/fault schedule: faults\[0\]\.target is "carol", not a process of pause-test \/ fenced; allowed: alice, bob, /);
    expect(await page.getAttribute('#faults', 'aria-invalid')).toBe('true');
    expect(await shownHash()).toBe(editedHash); // nothing ran
    expect(errors).toEqual([]);
  });

  it('loads a failing artifact from ?run=: replays it before showing its checks (the same run) and highlights the violation', async () => {
    const { page, errors } = await open(`?run=./${FAILING_ARTIFACT}`);
    expect(await page.getAttribute('#tab-timeline', 'aria-selected')).toBe('true');
    const violationMarks = page.locator(`#timeline [${ATTR.kind}][${ATTR.violation}]`);
    await violationMarks.first().waitFor({ state: 'attached', timeout: 30_000 });
    expect(await violationMarks.count()).toBeGreaterThan(0);
    // Node wrote the artifact; the simulator's portable ln/exp give Chromium's worker the same trace.
    expect(await page.textContent('#view-timeline')).toMatch(/This artifact was replayed from its seed and fault schedule in this page before its checks are shown: same trace hash [0-9a-f]{16}; the artifact's verdict \(VIOLATION: fence\) and checks are the replay's, so the run is reproduced exactly/);
    expect(await page.getAttribute('#run-result .run-result', 'data-verified')).toBe('reproduced');
    const failing = page.locator(`${checkRows}[${ATTR.ok}="false"]`);
    expect(await failing.evaluateAll((rows, v) => rows.map((r) => r.getAttribute(v)), ATTR.violation)).toEqual(['fence']);
    await screenshot(page, 'timeline-violation');
    expect(errors).toEqual([]);
  });

  it('says which ?run= URL could not be fetched and why', async () => {
    const { page, errors } = await open('?run=./no-such-run.json');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/\?run=\.\/no-such-run\.json: the server answered HTTP 404; check the URL/);
    // The browser itself logs the failed fetch; nothing else may fail.
    expect(errors.filter((e) => !/Failed to load resource: .* 404/.test(e))).toEqual([]);
  });

  it('says so when ?scenario= or ?variant= names nothing it has, instead of passing over it', async () => {
    const { page, errors } = await open('?scenario=nope');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/\?scenario=nope: no scenario "nope"; the scenarios: pause-test, .*\. The form shows pause-test instead\./);
    const wrongVariant = await open('?scenario=hot-key&variant=nope');
    await wrongVariant.page.waitForSelector('#error:not([hidden])');
    expect(await wrongVariant.page.textContent('#error')).toMatch(/\?variant=nope: scenario hot-key has no variant "nope"; its variants: /);
    expect(await wrongVariant.page.inputValue('#scenario')).toBe('hot-key');
    expect([...errors, ...wrongVariant.errors]).toEqual([]);
  });

  it('ends a schedule that never lets the workload finish at the horizon, with a verdict (it spun for ever before)', async () => {
    const { page, errors } = await open();
    await page.waitForSelector('#faults-status[data-schedule="own"]', { timeout: 30_000 });
    // Both holders frozen for good: the kit runs on bob's clock, so it never finishes (alice alone: it gives up on her).
    await page.fill('#faults', formatFaultSchedule([{ atMs: 1000, kind: 'pause', target: 'alice' }, { atMs: 1000, kind: 'pause', target: 'bob' }]));
    await page.click('form.run-form button[type=submit]');
    await page.waitForSelector(`${checkRows}[data-check="horizon"]`, { timeout: 120_000 });
    expect(await page.getAttribute(`${checkRows}[data-check="horizon"]`, ATTR.ok)).toBe('false');
    expect(errors).toEqual([]);
  });

  it('moves between views with the keyboard (arrow keys, Home, End), one tab stop, the URL naming the view', async () => {
    const { page, errors } = await open();
    await page.focus('#tab-runner');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => [document.activeElement?.id, document.querySelector('#tab-timeline')?.getAttribute('aria-selected'), location.hash])).toEqual(['tab-timeline', 'true', '#timeline']);
    await page.keyboard.press('End');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-quorum');
    expect(await page.isVisible('#view-quorum')).toBe(true);
    expect(await page.isVisible('#view-runner')).toBe(false);
    expect(await page.locator('[role="tab"][tabindex="0"]').count()).toBe(1);
    await page.keyboard.press('Home');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-runner');
    expect(errors).toEqual([]);
  });

  it('loads the same artifact through the file input, and refuses a dropped file that is not an artifact, naming the field', async () => {
    const { page, errors } = await open();
    await page.setInputFiles('#artifact-file', join(outDir, FAILING_ARTIFACT));
    await page.waitForSelector(`${checkRows}[${ATTR.ok}="false"]`, { timeout: 30_000 });
    expect(await page.textContent('#run-result h2')).toContain('pause-test / unfenced, seed 1: VIOLATION');
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['{"format": "something-else"}'], 'notes.json', { type: 'application/json' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    });
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/notes\.json: format is "something-else", not "lockstep\.run\/1"/);
    expect(errors).toEqual([]);
  });

  it('draws the TTL sizing charts with data, and shows a worker error naming the input', async () => {
    const { page, errors } = await open('#ttl');
    await page.fill('#ttl-from', '30');
    await page.fill('#ttl-to', '10');
    await page.click('#view-ttl button[type=submit]');
    await page.waitForSelector('#error:not([hidden])');
    // The procedure's rule (sim/planner/ttl-pricing.ts), under the form's field name.
    expect(await page.textContent('#error')).toMatch(/TTL to 10 must be .* at or above the sweep's start \(30\)/);
    await page.fill('#ttl-from', '5');
    await page.fill('#ttl-to', '20');
    await page.click('#view-ttl button[type=submit]');
    await page.locator('#ttl-output path[data-series]').first().waitFor({ state: 'attached', timeout: 60_000 });
    const paths = await page.locator('#ttl-output path[data-series]').evaluateAll((ps) => ps.map((p) => ({ points: Number(p.getAttribute('data-points')), segments: (p.getAttribute('d') ?? '').split('L').length - 1 })));
    expect(paths).toHaveLength(6);
    for (const p of paths) expect(p).toEqual({ points: 4, segments: 3 }); // TTLs 5, 10, 15, 20
    expect(await page.locator('#ttl-table tbody tr').count()).toBe(4);
    // Each legend entry names what the series is and says its source once ("simulated (simulated)" did not).
    const legend = await page.locator('#ttl-output ul.legend li').allTextContents();
    expect(legend).toHaveLength(6);
    for (const entry of legend) expect(entry.match(/simulated|analytic/g), entry).toHaveLength(1);
    await screenshot(page, 'ttl');
    expect(errors).toEqual([]);
  });

  it('draws the quorum CDFs with each floor, both upper bounds labelled, the split by leader placement, and the model\'s assumptions', async () => {
    const { page, errors } = await open('#quorum');
    await page.fill('#quorum-samples', '60');
    await page.click('#view-quorum button[type=submit]');
    await page.locator('#quorum-output path[data-series]').first().waitFor({ state: 'attached', timeout: 60_000 });
    const topologies = ['regional-3', 'coord-5-2-2-1', 'stretched-3-region'];
    const curves = await page.locator('[data-chart="quorum-cdf"] path[data-series]').evaluateAll((ps) => ps.map((p) => [p.getAttribute('data-series'), Number(p.getAttribute('data-points'))] as const));
    expect(curves.map(([name]) => name)).toEqual(topologies);
    for (const [, steps] of curves) expect(steps).toBeGreaterThan(10);
    expect(await page.locator('[data-chart="quorum-cdf"] line[data-reference][data-label="floor"]').count()).toBe(3);
    // Both bounds, each in a column that says which it is; every p99 is read against them, and none is over the loaded one.
    const headers = await page.locator('#quorum-table thead th').allTextContents();
    expect(headers).toEqual(expect.arrayContaining(['upper bound, one in flight (analytic)', 'upper bound under load (analytic)']));
    const rows = await page.locator('#quorum-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({ topology: tr.getAttribute('data-topology'), verdict: tr.getAttribute('data-p99-verdict'), upper: Number.parseFloat(tr.querySelector('[data-bound="upper"]')?.textContent ?? ''), loaded: Number.parseFloat(tr.querySelector('[data-bound="loaded"]')?.textContent ?? '') })));
    expect(rows.map((r) => r.topology)).toEqual(topologies);
    for (const r of rows) {
      expect(r.loaded).toBeGreaterThan(r.upper);
      expect(['under-upper', 'under-loaded']).toContain(r.verdict);
    }
    // A CDF line per leader placement for every topology, and a table row per member with its simulated p99.
    for (const name of topologies) {
      const members = await page.locator(`#quorum-leaders tr[data-topology="${name}"]`).count();
      expect(await page.locator(`[data-chart="quorum-cdf-${name}"] path[data-series]`).count()).toBe(members);
    }
    const leaderP99 = async (leader: string): Promise<number> => Number.parseFloat((await page.textContent(`#quorum-leaders tr[data-leader="${leader}"] td[data-figure="p99"]`)) ?? '');
    expect((await leaderP99('etcd-use')) * 2).toBeLessThan(await leaderP99('etcd-euw'));
    expect(await page.textContent('#quorum-pinning li[data-topology="stretched-3-region"]')).toMatch(/pinning the leader to etcd-use \(us-east\) would give p99 [\d.]+ ms instead of [\d.]+ ms unpinned/);
    // The assumptions: each topology's setting, then docs/planner.md's section, not a retyped copy.
    expect(await page.textContent('#quorum-assumptions li[data-topology="stretched-3-region"]')).toMatch(/8 clients and the arbiter in hall use-a \(us-east\); the arbiter's etcd client on etcd-use/);
    expect(await page.locator('#quorum-assumptions ul.doc li').count()).toBeGreaterThanOrEqual(2);
    expect(await page.textContent('#quorum-assumptions ul.doc')).toMatch(/The leader is not pinned/);
    await screenshot(page, 'quorum');
    expect(errors).toEqual([]);
  });

  it('shows a progress line for a long job, and Cancel restarts the worker, which then runs the next job', async () => {
    const { page, errors } = await open('#quorum');
    await page.fill('#quorum-samples', '2000');
    await page.click('#view-quorum button[type=submit]');
    await page.waitForSelector('#progress:not([hidden])', { timeout: 30_000 });
    expect(await page.textContent('#progress')).toMatch(/Quorum pricing: .*\d+(\.\d)? s/);
    await page.click('#progress button');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/cancelled; the simulator was restarted/);
    await page.click('#tab-runner');
    await page.click('form.run-form button[type=submit]');
    await page.waitForSelector(checkRows, { timeout: 30_000 });
    expect(await page.locator(checkRows).count()).toBeGreaterThanOrEqual(5);
    expect(errors).toEqual([]);
  });
});

describe('the workbench and what it is given (issue 18)', () => {
  const verified = '#run-result .run-result';

  it("flags a forged artifact from ?run=: the replay's checks, the record's lie named in both views, where it came from, and the page's own replay command", async () => {
    const { page, errors } = await open(`?run=./${FORGED_ARTIFACT}`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    expect(await page.getAttribute('#tab-timeline', 'aria-selected')).toBe('true');
    const timelineWarning = await page.textContent('#view-timeline .verification.warning');
    expect(timelineWarning).toContain('This artifact says ok; replaying it gives VIOLATION: fence (fence: the artifact says ok, the replay FAIL)');
    const marks = page.locator(`#timeline [${ATTR.kind}][${ATTR.violation}]`);
    await marks.first().waitFor({ state: 'attached', timeout: 30_000 });
    await screenshot(page, 'forged-timeline');
    await page.click('#tab-runner');
    expect(await page.getAttribute(verified, 'data-verified')).toBe('record-differs');
    expect(await page.textContent('#run-result h2')).toContain('pause-test / unfenced, seed 7: VIOLATION');
    expect(await page.locator(`${checkRows}[${ATTR.ok}="false"]`).evaluateAll((rows, v) => rows.map((r) => r.getAttribute(v)), ATTR.violation)).toEqual(['fence']);
    expect(await page.textContent('#run-result [role="alert"]')).toContain('This artifact says ok; replaying it gives VIOLATION: fence');
    expect(await page.textContent('#run-result .source')).toBe(`From ${new URL(FORGED_ARTIFACT, server.url).href}, fetched from this page's own origin (${new URL(server.url).origin}) by ?run=.`);
    // The command is the page's, from the checked scenario, variant, seed and file name; the artifact's is nowhere.
    expect(await page.textContent('#replay-command')).toBe(`lockstep replay ${FORGED_ARTIFACT}`);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.waitForSelector('p.replay .hint:text("copied")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`lockstep replay ${FORGED_ARTIFACT}`);
    const pageText = (await page.textContent('body')) ?? '';
    expect(pageText).not.toContain(FORGED_REPLAY);
    expect(pageText).not.toContain('curl');
    expect(pageText).not.toMatch(/Every check passed|no violation/);
    await screenshot(page, 'forged-runner');
    expect(errors).toEqual([]);
  });

  it('replays an artifact that carries a timeline before showing its checks, and marks one it cannot replay NOT VERIFIED', async () => {
    const { page, errors } = await open();
    await page.setInputFiles('#artifact-file', join(outDir, FORGED_WITH_TIMELINE));
    await page.waitForSelector(`${verified}[data-verified="record-differs"]`, { timeout: 30_000 });
    expect(await page.textContent('#run-result .source')).toBe(`From the file ${FORGED_WITH_TIMELINE}, loaded in this page.`);
    expect(await page.locator(`${checkRows}[${ATTR.ok}="false"]`).count()).toBe(1);
    await page.setInputFiles('#artifact-file', join(outDir, UNREPLAYABLE_ARTIFACT));
    await page.waitForSelector(`${verified}[data-verified="not-verified"]`, { timeout: 30_000 });
    expect(await page.textContent('#error')).toMatch(/Replay unreplayable\.json to verify its checks: fault schedule: faults\[0\]\.target is "mallory", not a process of pause-test \/ unfenced/);
    expect(await page.textContent('#run-result h2')).toContain('pause-test / unfenced, seed 1: NOT VERIFIED (the artifact says: VIOLATION)');
    expect(await page.textContent('#run-result [role="alert"]')).toMatch(/^NOT VERIFIED: these are the artifact's own checks; replaying it failed/);
    expect(await page.textContent('#run-result caption')).toBe('Checks the artifact records (not verified)');
    expect(errors).toEqual([]);
  });

  it("opens ?run= on another origin only when the reader chooses to, and then only an origin lockstep web was started with", async () => {
    const link = `?run=${encodeURIComponent(`${store.origin}/${FORGED_ARTIFACT}`)}`;
    const { page, errors } = await open(link);
    const prompt = page.locator('#run-link[data-run-link="other-origin"]');
    expect(await prompt.textContent()).toContain(`naming ${store.origin}/${FORGED_ARTIFACT}, on another origin (${store.origin}) than this page's (${new URL(server.url).origin})`);
    expect(store.requests).toEqual([]); // nothing fetched before the choice
    await page.click('#run-link-open');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toContain(`started with (--allow-origin ${store.origin})`);
    expect(store.requests).toEqual([]); // the workbench's CSP (connect-src) stopped it
    expect(await cspViolations(page)).toEqual([`connect-src ${store.origin}/${FORGED_ARTIFACT}`]);
    // The browser reports the blocked fetch itself; nothing else may fail.
    const blockedConnect = /^console error: (Connecting to '.*' violates the following Content Security Policy directive: "connect-src |Fetch API cannot load .* Refused to connect because it violates the document's Content Security Policy)/;
    expect(errors.filter((e) => !blockedConnect.test(e))).toEqual([]);

    const allowed = await open(link, allowingServer);
    await allowed.page.click('#run-link-open');
    await allowed.page.waitForSelector(`${verified}[data-verified="record-differs"]`, { state: 'attached', timeout: 30_000 });
    expect(store.requests).toEqual([`/${FORGED_ARTIFACT}`]);
    expect(await allowed.page.textContent('#run-result .source')).toContain(`fetched by ?run= from another origin, ${store.origin}, because you chose to`);
    expect(allowed.errors).toEqual([]);
  });

  it('opens a data: URL in ?run= only when the reader chooses to, and refuses other schemes', async () => {
    // Drop the bulk a data: link would not carry (the history, which the replay recomputes), to keep the URL short.
    const { history: _history, ...small } = JSON.parse(forgedText) as Record<string, unknown>;
    const { page, errors } = await open(`?run=${encodeURIComponent(`data:application/json;base64,${Buffer.from(JSON.stringify(small)).toString('base64')}`)}`);
    expect(await page.textContent('#run-link[data-run-link="data"]')).toMatch(/the artifact comes in the link itself, from whoever wrote the link/);
    expect(await page.locator('#run-result .run-result').count()).toBe(0);
    await page.click('#run-link-open');
    await page.waitForSelector(`${verified}[data-verified="record-differs"]`, { state: 'attached', timeout: 30_000 });
    expect(await page.textContent('#replay-command')).toBe('lockstep replay pause-test-unfenced-seed-7.json');
    expect(errors).toEqual([]);

    const refused = await open(`?run=${encodeURIComponent('javascript:alert(document.domain)')}`);
    await refused.page.waitForSelector('#error:not([hidden])');
    expect(await refused.page.textContent('#error')).toMatch(/\?run=javascript:alert\(document\.domain\): is a javascript: URL; \?run= opens http\(s\) URLs/);
    expect(refused.errors).toEqual([]);
  });

  it("is served with a CSP under which the app runs with no violation, an injected inline script does not run, and no other page can frame it", async () => {
    const response = await fetch(server.url);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const { page, errors } = await open(`?run=./${FAILING_ARTIFACT}`);
    await page.locator(`#timeline [${ATTR.kind}][${ATTR.violation}]`).first().waitFor({ state: 'attached', timeout: 30_000 });
    expect(await cspViolations(page)).toEqual([]); // the app, its worker, its stylesheet and the timeline's injected one all ran
    // The timeline's injected stylesheet applied (allowed by its hash): its chart has the border the stylesheet gives it.
    expect(await page.locator('.lst-chart').evaluate((node) => getComputedStyle(node).borderTopStyle)).toBe('solid');
    // Negative control: an inline script that got into the page does not run, and is reported.
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.injectedRan = true;';
      document.body.append(script);
      await new Promise((done) => setTimeout(done, 0));
      return (window as unknown as { injectedRan?: boolean }).injectedRan === true;
    });
    expect(ran).toBe(false);
    expect((await cspViolations(page)).map((v) => v.split(' ')[0])).toEqual(['script-src-elem']);
    expect(errors.filter((e) => !/^console error: Executing inline script violates the following Content Security Policy directive 'script-src 'self''/.test(e))).toEqual([]);

    // Framed by a page of another origin (the artifact store's): the browser refuses to show the workbench in
    // the frame. Its negative control: the same build served without the workbench's headers shows in one.
    const framedApp = async (url: string): Promise<boolean> => {
      const framing = await browser.newPage();
      try {
        await framing.goto(`${store.origin}/framing.html`);
        await framing.setContent(`<iframe id="w" src="${url}"></iframe>`);
        const frame = await (await framing.waitForSelector('#w')).contentFrame();
        await frame?.waitForLoadState('load');
        return (await frame?.evaluate(() => document.querySelector('#app') !== null).catch(() => false)) ?? false;
      } finally {
        await framing.close();
      }
    };
    const bare = await startStaticServer({ root: outDir, port: 0 });
    try {
      expect([await framedApp(server.url), await framedApp(bare.url)]).toEqual([false, true]);
    } finally {
      await bare.close();
    }
  });
});
