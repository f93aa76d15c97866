// `lockstep bench`: bad flags exit 2 before anything starts; and a short smoke run on a throwaway
// 1-member etcd, asserting only that the report is complete and sane (the figures themselves depend on
// the machine: ratios are reported by the bench, never asserted here).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatMarkdown, formatText } from '../../bench/format.js';
import type { HardwareProfile } from '../../bench/profile.js';
import type { BenchReport, WorkloadReport } from '../../bench/report.js';
import { main } from '../cli.js';
import type { CliIo } from '../cli-io.js';

function capture(): CliIo & { out: (t: string) => void; outLines: string[]; errLines: string[] } {
  const outLines: string[] = [];
  const errLines: string[] = [];
  return { outLines, errLines, out: (t) => outLines.push(t), err: (t) => errLines.push(t) };
}

describe('lockstep bench: bad flags exit 2, name the flag and the fix', () => {
  it('--help exits 0 and names every flag', async () => {
    const io = capture();
    expect(await main(['bench', '--help'], io)).toBe(0);
    const help = io.outLines.join('\n');
    for (const flag of ['--endpoints', '--local', '--duration', '--concurrency', '--out', '--profile', '--json', '--md', '--compare-sim', '--capacity', '--capacity-renew']) expect(help).toContain(flag);
  });

  it.each([
    [[], /--local 1\|3 starts a throwaway cluster/],
    [['--local', '2'], /--local "2" must be 1 or 3/],
    [['--local', '1', '--endpoints', '127.0.0.1:9'], /exclude each other/],
    [['--endpoints', 'nohost'], /"nohost" is not host:port/],
    [['--local', '1', '--duration', 'soon'], /--duration "soon" is not a duration/],
    [['--local', '1', '--duration', '100ms'], /between 500ms and 1h/],
    [['--local', '1', '--concurrency', '1,x'], /--concurrency "1,x" must be whole numbers/],
    [['--local', '1', '--concurrency', '0'], /from 1 to 1024/],
    [['--local', '1', '--sessions', '-3'], /--sessions "-3"/],
    [['--local', '1', '--json', '--md'], /--json and --md exclude each other/],
    [['--local', '1', '--capacity', '1000'], /--capacity "1000" must be SESSIONSxHOLDS/],
    [['--local', '1', '--capacity', '10x2', '--capacity-renew', '10ms'], /--capacity-renew 10ms must be between/],
    [['--local', '1', '--out', '/no/such/dir/report.json'], /--out \/no\/such\/dir\/report.json: its directory \/no\/such\/dir does not exist/],
    [['--local', '1', '--nope'], /unknown option '--nope'/],
  ])('%j', async (args, message) => {
    const io = capture();
    expect(await main(['bench', ...args], io)).toBe(2);
    expect([...io.errLines, ...io.outLines].join('\n')).toMatch(message);
  });
});

function expectOrdered(label: string, s: { p50Ms: number; p99Ms: number; p999Ms: number; count: number }): void {
  expect(s.count, `${label}: samples`).toBeGreaterThan(0);
  expect(s.p50Ms, `${label}: p50 > 0`).toBeGreaterThan(0);
  expect(s.p50Ms, `${label}: p50 <= p99`).toBeLessThanOrEqual(s.p99Ms);
  expect(s.p99Ms, `${label}: p99 <= p999`).toBeLessThanOrEqual(s.p999Ms);
}

function expectWorkload(name: string, workload: WorkloadReport, concurrency: number[], phases: string[]): void {
  expect(workload.runs.map((r) => r.concurrency), `${name}: one run per concurrency`).toEqual(concurrency);
  for (const run of workload.runs) {
    expect(run.throughputPerS, `${name} c=${run.concurrency}: throughput`).toBeGreaterThan(0);
    expect(Object.keys(run.phases).sort()).toEqual([...phases].sort());
    for (const phase of phases) expectOrdered(`${name} c=${run.concurrency} ${phase}`, run.phases[phase] as never);
  }
}

describe('lockstep bench --local 1 --duration 2s (smoke)', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('runs start to finish and prints a complete, sane report', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-bench-'));
    dirs.push(dir);
    const out = join(dir, 'report.json');
    const profilePath = join(dir, 'profile.json');
    const io = capture();
    const code = await main(['bench', '--local', '1', '--duration', '2s', '--concurrency', '1,4', '--compare-sim', '--capacity', '20x3', '--capacity-renew', '5s', '--json', '--out', out, '--profile', profilePath], io);
    const last = io.outLines[io.outLines.length - 1] ?? '';
    expect(code, io.errLines.join('\n')).toBe(0);
    const report = JSON.parse(last) as BenchReport;

    expect(Object.keys(report).sort()).toEqual(['capacity', 'compareSim', 'env', 'fsync', 'goals', 'grant', 'hop', 'keepalive', 'loopbackRtt', 'peerLock', 'ratios', 'rawTxn', 'service', 'serviceTls']);
    expect(report.env.members).toBe(1);
    expect(report.env.local).toBe(true);
    expect(report.env.etcdVersion).toMatch(/^3\.\d+\.\d+/);
    expect(report.env.cores).toBeGreaterThan(0);
    expect(report.env.disk.dir).not.toBe('');
    expectOrdered('fsync', report.fsync);
    expectOrdered('loopback RTT', report.loopbackRtt);
    expectWorkload('rawTxn', report.rawTxn, [1, 4], ['create', 'delete', 'cycle']);
    expectWorkload('grant', report.grant, [1, 4], ['acquire', 'release', 'cycle']);
    expectWorkload('service', report.service, [1, 4], ['acquire', 'release', 'cycle']);
    expectWorkload('serviceTls', report.serviceTls, [1, 4], ['acquire', 'release', 'cycle']);
    expectWorkload('peerLock', report.peerLock, [1, 4], ['acquire', 'release', 'cycle']);
    expectWorkload('keepalive', report.keepalive, [1, 4], ['keepalive']);
    expect(report.keepalive.sessions).toBeGreaterThan(0);
    expect(report.keepalive.sessionsSustainedAt5sRenewal).toBeGreaterThan(0);
    for (const key of ['grantP50OverRaw', 'grantThroughputOverRaw', 'peerP50OverGrant'] as const) {
      const value = report.ratios[key];
      expect(Number.isFinite(value), `ratios.${key} = ${value}`).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
    for (const row of report.ratios.byConcurrency) {
      for (const key of ['serviceP50OverGrant', 'serviceP99OverGrant', 'serviceThroughputOverGrant'] as const) expect(row[key], `c=${row.concurrency} ${key}`).toBeGreaterThan(0);
      expect(Number.isFinite(row.serviceHopP50Ms)).toBe(true); // a difference: either sign
    }
    expect(report.goals).toHaveLength(5);
    // Issue 30: four paths against the floor at each concurrency, serve's CPU read for both service paths.
    expect(report.hop.rows.map((r) => `${r.path.split(/[:,]/)[0]} c=${r.concurrency}`)).toEqual(['floor c=1', 'in-process arbiter c=1', 'through lockstep serve c=1', 'through lockstep serve c=1', 'floor c=4', 'in-process arbiter c=4', 'through lockstep serve c=4', 'through lockstep serve c=4']);
    for (const row of report.hop.rows) {
      expect(row.p50OverFloor, row.path).toBeGreaterThan(0);
      expect(row.cpuUs.client, row.path).toBeGreaterThan(0);
      expect(row.cpuUs.serve === null, row.path).toBe(!row.path.includes('serve'));
    }
    expect(report.hop.goals).toHaveLength(4);
    expect(report.hop.capacity?.steps.map((s) => s.concurrency)).toEqual([1, 2, 4]);
    // --capacity 20x3: every session and hold set up through lockstep serve, renewed, and read back from etcd.
    expect(report.capacity).toMatchObject({ sessions: 20, holds: 60, ttlSeconds: 15, renewalFailures: 0, falseFences: 0, holdsStillHeld: 60 });
    expect(report.capacity?.renewals).toBeGreaterThan(0); // each session renews TTL/3 = 5 s after it opened: inside the 5 s run

    // --compare-sim: one prediction per concurrency, every figure positive, every deviation finite.
    expect(report.compareSim.status, report.compareSim.note).toBe('compared');
    expect(report.compareSim.rows?.map((r) => r.concurrency)).toEqual([1, 4]);
    for (const row of report.compareSim.rows ?? []) {
      expect(row.predicted.p50Ms).toBeGreaterThan(0);
      expect(row.predicted.p50Ms).toBeLessThanOrEqual(row.predicted.p99Ms);
      expect(row.predicted.throughputPerS).toBeGreaterThan(0);
      for (const value of Object.values(row.deviation)) expect(Number.isFinite(value)).toBe(true);
    }

    // --out holds the same report; --profile the measured distributions, in the simulator's format.
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(report);
    const profile = JSON.parse(await readFile(profilePath, 'utf8')) as HardwareProfile;
    expect(profile.walFsync.kind).toBe('empirical');
    expect(profile.walFsync.samplesMs.length).toBeGreaterThan(0);
    expect(profile.loopbackRtt.samplesMs.length).toBeGreaterThan(0);
    expect(profile.cpuByConcurrency?.map((c) => c.fromConcurrency)).toEqual([1, 4]);
    expect(profile.cpuByConcurrency?.[0]?.clientCostMsPerCall).toBeGreaterThan(0);

    // The people's views render every section.
    const text = formatText(report);
    const markdown = formatMarkdown(report);
    for (const view of [text, markdown]) {
      for (const needle of ['fdatasync', 'raw etcd txn', 'lockstep grant', 'lockstep serve (service)', 'etcd3 Lock (peer)', 'keepalive', 'grant/raw', 'service/in-process', 'capacity through lockstep serve', 'predicted', 'lockstep serve mTLS (service)', 'p50 x floor', 'capacity of one serve']) expect(view).toContain(needle);
    }
    expect(io.errLines.some((line) => /^bench: grant c=4 /.test(line)), 'a progress line per run').toBe(true);
  });
});
