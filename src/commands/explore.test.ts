import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MUTANT_NAMES } from '../../scenarios/mutants.js';
import { Progress, progressLine } from '../explore/progress.js';
import { runCli } from '../testing/run-cli.js';

interface Summary {
  runs: number;
  failures: { seed: string; scenario: string; check: string; artifact: string; replay: string }[];
  runsToFirstFailure: number | null;
  mutant: string | null;
  workers: number;
}

const summaryOf = (out: readonly string[]): Summary => JSON.parse(out.at(-1) ?? '{}') as Summary;

describe('lockstep explore', () => {
  it('catches a mutant, shrinks and saves the failure, and the printed replay command reproduces it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-explore-'));
    const run = await runCli('explore', '--mutant', 'grant-on-watch-event', '--runs', '3', '--workers', '1', '--shrink-budget', '10', '--out-dir', dir, '--json');
    expect(run.code).toBe(1);
    const summary = summaryOf(run.out);
    expect(summary).toMatchObject({ runs: 1, runsToFirstFailure: 1, mutant: 'grant-on-watch-event' });
    const [failure] = summary.failures;
    expect(failure).toMatchObject({ seed: '1', scenario: 'swarm', check: 'belief' });
    expect(failure?.replay).toBe(`lockstep replay ${failure?.artifact}`);
    const artifact = JSON.parse(await readFile(failure?.artifact ?? '', 'utf8')) as { variant: string; ok: boolean; replay: string };
    expect(artifact).toMatchObject({ variant: 'grant-on-watch-event', ok: false, replay: failure?.replay });
    expect(existsSync(join(dir, 'swarm-grant-on-watch-event-seed1-original.json'))).toBe(true);
    const replayed = await runCli('replay', failure?.artifact ?? '', '--json');
    expect(JSON.parse(replayed.out.at(-1) ?? '{}')).toMatchObject({ sameTraceHash: true, sameVerdict: true, ok: false });
    // The explorer's runs go unhashed (issue 16); both saved artifacts come from hashed reruns, so each holds its run's true hash.
    const original = join(dir, 'swarm-grant-on-watch-event-seed1-original.json');
    expect((JSON.parse(await readFile(original, 'utf8')) as { traceHash: string }).traceHash).toMatch(/^[0-9a-f]{16}$/);
    const replayedOriginal = await runCli('replay', original, '--json');
    expect(JSON.parse(replayedOriginal.out.at(-1) ?? '{}')).toMatchObject({ sameTraceHash: true, sameVerdict: true, ok: false });
  });

  it('finds the same first failure on worker threads as inline, and the real core passes its seeds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-explore-'));
    // explore --mutant no-seal --runs 12 --keep-going catches seeds 4, 5, 6 and 10 (since issue 19's
    // confirmation read before an arbiter's first write moved the schedules). Seeds 9-12: 9 passes, 10 is
    // caught, 11 and 12 pass, so the first failure is the second run whichever worker runs what.
    const threads = summaryOf((await runCli('explore', '--mutant', 'no-seal', '--seed', '9', '--runs', '4', '--workers', '2', '--shrink-budget', '3', '--out-dir', dir, '--json')).out);
    expect(threads).toMatchObject({ runsToFirstFailure: 2, workers: 2 });
    expect(threads.failures.map((f) => [f.seed, f.check])).toEqual([['10', 'token-order']]);
    const honest = await runCli('explore', '--runs', '3', '--workers', '2', '--json');
    expect(honest.code).toBe(0);
    expect(summaryOf(honest.out)).toMatchObject({ runs: 3, failures: [], runsToFirstFailure: null, mutant: null });
  });

  it('runs only its shard\'s seeds', async () => {
    const shard = await runCli('explore', '--runs', '5', '--shard', '1/2', '--workers', '1', '--json');
    expect(shard.code).toBe(0);
    expect(summaryOf(shard.out).runs).toBe(2); // runs 1 and 3 of 0..4
  });

  it.each([
    [['--shard', '2/2'], /0 <= i < n/],
    [['--mutant', 'nope'], new RegExp(`no mutant "nope"; the mutants: ${MUTANT_NAMES.join(', ')}`)],
    [['--runs', '0'], /--runs "0" must be a whole number/],
    [['--scenario', 'pause-test', '--mutant', 'no-seal'], /--mutant runs on the swarm scenario/],
    [['--scenario', 'no-such'], /no scenario "no-such"/],
  ])('refuses %j with exit 2', async (args, message) => {
    const { code, err } = await runCli('explore', ...args);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(message);
  });

  it('lists the mutants in lockstep list --json', async () => {
    const listed = JSON.parse((await runCli('list', '--json')).out.at(-1) ?? '{}') as { mutants: { name: string; description: string }[] };
    expect(listed.mutants.map((m) => m.name)).toEqual([...MUTANT_NAMES]);
    for (const mutant of listed.mutants) expect(mutant.description.length).toBeGreaterThan(20);
  });
});

describe('the progress line', () => {
  it('shows the share done, failures and rate, and draws only on a terminal', () => {
    expect(progressLine(50, 200, 0, 10_000)).toBe(`[${'#'.repeat(7)}${'.'.repeat(21)}] 50/200 runs, no failure, 5 runs/s, ~30 s left`);
    expect(progressLine(200, 200, 2, 20_000)).toMatch(/^\[#{28}\] 200\/200 runs, 2 FAILURES, 10 runs\/s/);
    const drawn: string[] = [];
    const tty = new Progress({ isTTY: true, write: (text) => drawn.push(text) }, 10, 0, () => 1_000);
    tty.update(10, 0);
    tty.end();
    expect(drawn).toEqual([`\r${progressLine(10, 10, 0, 1_000)}\u001b[K`, '\n']);
    const piped: string[] = [];
    new Progress({ isTTY: false, write: (text) => piped.push(text) }, 10, 0, () => 1_000).update(10, 0);
    expect(piped).toEqual([]);
  });
});
