// ADR-22 through a real `lockstep serve` process on real etcd: `lockstep lock --arbiter` clients take turns
// on a key (one is refused contended), then /metrics on --metrics-listen is scraped. Every ADR-22 metric
// is exposed, every series carries only namespace/class/tier/cluster labels (and `le`, the bucket bound
// Prometheus itself adds to a histogram), the grants are counted, and none of the tokens the commands
// were given appears in the metrics text or in serve's debug-level JSON log of every call. The controls:
// the same search finds those tokens in the commands' own journal, and the label check flags a series
// with a key label.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { ALLOWED_LABEL_NAMES, METRIC_NAMES } from '../metrics/index.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';
import { tokenLeaks } from '../testing/token-leak.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-serve-metrics-'));
const CLASS = 'svc-metrics';
const CLIENTS = ['m0', 'm1', 'm2'];
const idOf = (name: string): string => `spiffe://lockstep.test/ns/payments/sa/${name}`;
let cluster: EtcdCluster;
let log: LockLog;
let server: LockstepProcess | undefined;

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1, namePrefix: 'metrics' });
  log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
});

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await log?.close();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Label names of every sample line of an exposition text, with the metric they are on. */
function sampleLabels(text: string): Array<{ metric: string; label: string }> {
  const found: Array<{ metric: string; label: string }> = [];
  for (const [, metric, labels] of text.matchAll(/^([a-zA-Z_:][\w:]*)\{([^}]*)\}/gm)) {
    for (const [, label] of (labels ?? '').matchAll(/([a-zA-Z_]\w*)="(?:[^"\\]|\\.)*"/g)) found.push({ metric: metric ?? '', label: label ?? '' });
  }
  return found;
}

const ALLOWED_IN_TEXT: readonly string[] = [...ALLOWED_LABEL_NAMES, 'le'];
const offLabels = (text: string) => sampleLabels(text).filter(({ label }) => !ALLOWED_IN_TEXT.includes(label));

/** Cuts the fractional digits of float samples (a sum of seconds is not an integer that could be a token). */
const integerParts = (text: string): string => text.replace(/( -?\d+)\.\d+(?:e[+-]?\d+)?$/gm, '$1');

describe('lockstep serve --metrics-listen', () => {
  it('exposes the ADR-22 metrics of a workload with only the allowed labels, and no token in metrics or logs', { timeout: 120_000 }, async () => {
    const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
    await mkdir(dirs.classes);
    await mkdir(dirs.grants);
    const classFile = await writeFencedClass(dirs.classes, CLASS, 5);
    const grants = CLIENTS.map((name) => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: payments }`, `spec: { identity: "${idOf(name)}", prefixes: [payments/] }`].join('\n'));
    await writeFile(join(dirs.grants, 'grants.yaml'), `${grants.join('\n---\n')}\n`);
    const [port, metricsPort] = (await freePorts(2)) as [number, number];
    const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
    server = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`, '--metrics-listen', `127.0.0.1:${metricsPort}`, '--cluster-name', 'entity-test', '--json', '--log-level', 'debug']);
    await server.waitForStderr(/metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/, 30_000);

    const key = 'payments/metered';
    const journal = join(scratch, 'journal.txt');
    await writeFile(journal, '');
    const lock = (name: string, command: string, wait: string) =>
      startLockstep(['lock', '--arbiter', `127.0.0.1:${port}`, '--identity', idOf(name), '--class', classFile, '--wait', wait, key, '--', 'sh', '-c', command]);
    // The holder keeps the key until the refused client has exited (or 20 s), so the refusal is certain.
    const done = join(scratch, 'refused-done');
    const holder = lock('m0', `echo "$LOCKSTEP_TOKEN" >> ${journal}; for i in $(seq 200); do [ -e ${done} ] && break; sleep 0.1; done`, '30s');
    for (let i = 0; i < 300 && (await readFile(journal, 'utf8')) === ''; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const waiters = ['m1', 'm2'].map((name) => lock(name, `echo "$LOCKSTEP_TOKEN" >> ${journal}`, '30s'));
    const refused = lock('m1', 'true', '0'); // the key is held: contended, counted
    const refusedCode = (await refused.exited).code;
    await writeFile(done, '');
    const codes = await Promise.all([holder, ...waiters].map(async (run) => (await run.exited).code));
    expect([refusedCode, ...codes]).toEqual([3, 0, 0, 0]);
    const tokens = (await readFile(journal, 'utf8')).trim().split('\n').map((line) => BigInt(line));
    expect(tokens).toHaveLength(3);

    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const name of Object.values(METRIC_NAMES)) expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    const series = `{namespace="payments",class="${CLASS}",tier="entity",cluster="entity-test"}`;
    expect(text).toContain(`lockstep_grants_total${series} 3`);
    expect(text).toContain(`lockstep_contended_total${series} 1`);
    expect(text).toContain(`lockstep_holds${series} 0`);
    expect(text).toMatch(/^lockstep_etcd_request_duration_seconds_count\{tier="entity",cluster="entity-test"\} [1-9]\d*$/m);
    expect(offLabels(text)).toEqual([]);
    expect(tokenLeaks(integerParts(text), tokens)).toEqual([]);
    expect(text).not.toContain('metered');

    // The log is serve's stderr: at debug every call is a JSON line of bounded fields (issue 28), never a request.
    const entries = server.stderr().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { call?: string; code?: string });
    expect(entries.filter((e) => e.call === 'acquire' && e.code === undefined)).toHaveLength(3);
    expect(entries.some((e) => e.call === 'release')).toBe(true);
    expect(tokenLeaks(server.stderr(), tokens)).toEqual([]);

    // Controls: the search finds these tokens where they are (the journal), and the label check a key label.
    expect(tokenLeaks(await readFile(journal, 'utf8'), tokens).length).toBeGreaterThanOrEqual(3);
    expect(offLabels(`${text}lockstep_grants_total{namespace="payments",key="payments/metered"} 1\n`)).toEqual([{ metric: 'lockstep_grants_total', label: 'key' }]);
  });

  it.each([
    [['--metrics-listen', 'nohost'], /--metrics-listen "nohost"/],
    [['--log-level', 'loud'], /--log-level "loud" is not a level; give one of fatal, error, warn, info, debug/],
    [['--cluster-name', 'a b'], /--cluster-name "a b": a metric label value/],
  ])('refuses %j before serving (exit 2)', async (args, message) => {
    const run = await runLockstep(['serve', '--endpoints', '127.0.0.1:9', '--classes', scratch, '--grants', scratch, ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
