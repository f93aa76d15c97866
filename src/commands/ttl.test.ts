import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatNumber, formatSeconds } from '../../core/numbers.js';
import { keepalivesPerSecond, livenessBound, writesPerSecond } from '../../core/planner/liveness.js';
import { main } from '../cli.js';
import type { ClassRow } from './ttl.js';

// A real `lockstep bench --local 1 --duration 1s --concurrency 1,8 --json` report from this machine's etcd.
const BENCH_REPORT = 'src/commands/ttl-bench-report.fixture.json';
const LEDGER = 'examples/classes/ledger-writes.yaml'; // ttlSeconds 10, fenced, with its pause test

async function ttl(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['ttl', ...args], { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const seconds = (ms: number): string => formatSeconds(ms);

describe('lockstep ttl', () => {
  it('prices every class in examples/classes (a directory) with a verdict, as JSON', async () => {
    const { code, out } = await ttl(['examples/classes', '--sessions', '3000', '--runs', '1', '--format', 'json']);
    expect(code).toBe(0);
    const { classes } = JSON.parse(out) as { classes: ClassRow[] };
    // The directory's class files, not its invalid/ examples.
    expect(classes.map((c) => c.name).sort()).toEqual(['cache-warmer', 'ledger-writes', 'scheduler-leader', 'statement-export']);
    const ledger = classes.find((c) => c.name === 'ledger-writes')!;
    expect(ledger.keepalivesPerSecond).toBe(keepalivesPerSecond(3000, 10));
    expect(ledger.reacquireMsP99!).toBeLessThanOrEqual(ledger.livenessBoundNoLeaderChangeMs);
    expect(classes.every((c) => c.verdict.ok)).toBe(true);
  });

  it('--format md: the comment a class pull request carries, every figure labelled, the verdict last', async () => {
    const { code, out } = await ttl([LEDGER, '--sessions', '3000', '--runs', '1', '--format', 'md']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Figures are \*\*analytic\*\* .*\*\*simulated\*\* .*\*\*measured\*\*/);
    expect(out).toContain('### TTL review: payments/ledger-writes (ttlSeconds: 10)');
    expect(out).toContain('| figure | value | source |');
    const bound = livenessBound(10);
    const row = (label: string): string => out.split('\n').find((line) => line.startsWith(`| ${label} |`)) ?? '';
    expect(row('liveness bound')).toContain(`| ${seconds(bound.withLeaderChangeMs)} | analytic worst case, one election round`);
    expect(row('  without a leader change')).toContain(`| ${seconds(bound.withoutLeaderChangeMs)} | analytic`);
    expect(row('  after a quorum loss')).toMatch(/\| outage \+ [\d.]+ s \| analytic, PreVote on/);
    expect(row('reacquire after holder crash p50/p99')).toMatch(/\| [\d.]+ s \/ [\d.]+ s \| simulated, 1 run \|/);
    expect(row('  with a leader change p50/p99')).toContain('simulated, 1 run: the etcd leader crashes with the holder');
    expect(row('false fences per session-hour')).toContain('simulated');
    expect(row('keepalives/s at the etcd leader')).toContain(`| ${keepalivesPerSecond(3000, 10)} | analytic`);
    expect(row('share of the write ceiling')).toContain('n/a (give --bench FILE)');
    // ledger-writes is fenced: the advisory floor is not its rule, and the verdict says so.
    expect(out.trimEnd().split('\n').at(-1)).toBe("**Verdict:** OK: 10 s is within ADR-11's range of 5..300 s (a fenced class: the advisory floor of 30 s does not apply); no rule problems");
  });

  it('--format md: a class outside the range gets NOT OK, its problem with the fix, exit 1, and no simulation', async () => {
    const { code, out } = await ttl(['examples/classes/invalid/ttl-out-of-range.yaml', '--sessions', '10', '--runs', '1', '--format', 'md']);
    expect(code).toBe(1);
    expect(out).toContain('**Verdict:** NOT OK: 1 problem(s)');
    expect(out).toMatch(/^- spec\.ttlSeconds .*600.*\. Fix: /m);
    expect(out).toContain('not simulated: the arbiter refuses a TTL outside 5..300 s');
    expect(out).toContain(`| liveness bound | ${seconds(livenessBound(600).withLeaderChangeMs)} |`);
  });

  it('--sweep: the analytic bound grows with the TTL, the simulated reacquire stays under it, one row per TTL', async () => {
    const { code, out } = await ttl([LEDGER, '--sessions', '100', '--runs', '1', '--sweep', 'ttl=5..30', '--format', 'json']);
    expect(code).toBe(0);
    const { sweep } = JSON.parse(out) as { sweep: Pick<ClassRow, 'ttlSeconds' | 'livenessBoundMs' | 'livenessBoundNoLeaderChangeMs' | 'reacquireMsP50'>[] };
    expect(sweep.map((s) => s.ttlSeconds)).toEqual([5, 10, 15, 20, 30]);
    for (const [i, point] of sweep.entries()) {
      expect(point.livenessBoundMs).toBe(livenessBound(point.ttlSeconds).withLeaderChangeMs);
      expect(point.reacquireMsP50!).toBeLessThanOrEqual(point.livenessBoundNoLeaderChangeMs);
      if (i > 0) expect(point.livenessBoundMs - sweep[i - 1]!.livenessBoundMs).toBe((point.ttlSeconds - sweep[i - 1]!.ttlSeconds) * 1000);
    }
    // The longest TTL keeps a crashed holder's key longer than the shortest, in simulation too.
    expect(sweep.at(-1)!.reacquireMsP50!).toBeGreaterThan(sweep[0]!.reacquireMsP50!);
    const md = await ttl([LEDGER, '--sessions', '100', '--runs', '1', '--sweep', 'ttl=5..30', '--format', 'md']);
    expect(md.out).toContain('| TTL s | liveness bound s (analytic) | reacquire p50 s (simulated) | false fences/session-hour: simulated (analytic) |');
    for (const point of sweep) expect(md.out).toContain(`| ${point.ttlSeconds} | ${formatNumber(point.livenessBoundMs / 1000, 2)} |`);
  });

  it('--sweep outside the ADR-11 range or backwards is refused, naming the flag', async () => {
    for (const sweep of ['ttl=30..5', 'ttl=1..60', 'ttl=5..400', 'ttl=5-60']) {
      const { code, err } = await ttl([LEDGER, '--sessions', '100', '--sweep', sweep]);
      expect(code, sweep).toBe(2);
      expect(err).toContain(`--sweep "${sweep}"`);
    }
  });

  describe('--bench FILE', () => {
    let dir = '';
    let report: { grant: { throughputPerS: number }; keepalive: { throughputPerS: number } };
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'lockstep-ttl-bench-'));
      report = JSON.parse(await readFile(BENCH_REPORT, 'utf8')) as typeof report;
    });
    afterAll(async () => rm(dir, { recursive: true, force: true }));

    it('a bench --json report: the write-ceiling share is the class writes over two writes per measured grant cycle', async () => {
      const { code, out } = await ttl([LEDGER, '--sessions', '3000', '--holds-per-session', '0.1', '--runs', '1', '--bench', BENCH_REPORT, '--format', 'json']);
      expect(code).toBe(0);
      const [row] = (JSON.parse(out) as { classes: ClassRow[] }).classes;
      const ceiling = 2 * report.grant.throughputPerS;
      expect(row!.writeCeilingPerSecond).toBe(ceiling);
      expect(row!.writeCeilingShare!).toBeCloseTo(writesPerSecond(3000, 0.1) / ceiling, 4);
      expect(row!.keepaliveCeilingShare!).toBeCloseTo(keepalivesPerSecond(3000, 10) / report.keepalive.throughputPerS, 4);
    });

    it('labels the share measured, in the table and the pull-request comment', async () => {
      for (const format of ['table', 'md']) {
        const { out } = await ttl([LEDGER, '--sessions', '3000', '--runs', '1', '--bench', BENCH_REPORT, '--format', format]);
        expect(out, format).toMatch(new RegExp(`share of the write ceiling.*% of ${2 * report.grant.throughputPerS} writes/s.*measured: 2 writes x ${report.grant.throughputPerS} grant cycles/s`));
        expect(out, format).toMatch(/share of the keepalive capacity.*measured/);
      }
    });

    it('a captured run whose last line is the report is read; a file that is neither report nor profile is refused', async () => {
      const captured = join(dir, 'captured.txt');
      await writeFile(captured, `bench: a progress line\n${await readFile(BENCH_REPORT, 'utf8')}`);
      const ok = await ttl([LEDGER, '--sessions', '3000', '--runs', '1', '--bench', captured, '--format', 'json']);
      expect((JSON.parse(ok.out) as { classes: ClassRow[] }).classes[0]!.writeCeilingPerSecond).toBe(2 * report.grant.throughputPerS);
      const other = join(dir, 'other.json');
      await writeFile(other, JSON.stringify({ topologies: [] }));
      const refused = await ttl([LEDGER, '--sessions', '3000', '--bench', other]);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/--bench .*other\.json: \(document\): is neither a bench report .* nor a hardware profile/);
    });
  });

  it('--json prints what --format json prints; an advisory class is judged against the floor, in words', async () => {
    const json = await ttl(['examples/classes/cache-warmer.yaml', '--sessions', '10', '--runs', '1', '--json']);
    const format = await ttl(['examples/classes/cache-warmer.yaml', '--sessions', '10', '--runs', '1', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(json.out).toBe(format.out);
    const [row] = (JSON.parse(json.out) as { classes: ClassRow[] }).classes;
    expect(row?.enforcement).toBe('advisory');
    const table = await ttl(['examples/classes/cache-warmer.yaml', '--sessions', '10', '--runs', '1']);
    expect(table.out).toContain(`verdict: OK: ${row?.ttlSeconds} s is within ADR-11's range of 5..300 s and at or above the advisory floor of 30 s; no rule problems`);
    expect((await ttl([LEDGER, '--sessions', '10', '--json', '--format', 'md'])).code).toBe(2);
  });

  it('refuses an empty class file: a truncated file must not pass a gate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-ttl-empty-'));
    const empty = join(dir, 'empty.yaml');
    await writeFile(empty, '');
    const { code, out, err } = await ttl([empty, '--sessions', '10']);
    await rm(dir, { recursive: true, force: true });
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/empty\.yaml: has no documents; an empty or truncated file is not a policy/);
  });

  it('names the flag when --sessions is wrong', async () => {
    const { code, err } = await ttl([LEDGER, '--sessions', 'lots']);
    expect(code).toBe(2);
    expect(err).toContain('--sessions');
  });
});
