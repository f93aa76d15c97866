// Four shards of one exploration, run as four `lockstep explore` processes at once (as the pods of
// deploy/explore-job.yaml would), merged by `lockstep explore merge`, report what one unsharded run over the
// same seeds reports: the same runs, the same failing seeds and checks.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLockstep } from '../testing/lockstep-process.js';
import { runCli } from '../testing/run-cli.js';

const RUNS = '8';
const FIRST_SEED = '41';
// A mutant fails some of these seeds, so the comparison covers failures, not only clean runs; --keep-going runs every
// seed, as a nightly exploration does, and the shrink budget is the least, since only the seeds are compared.
const EXPLORATION = ['explore', '--mutant', 'no-seal', '--runs', RUNS, '--seed', FIRST_SEED, '--workers', '1', '--keep-going', '--shrink-budget', '1', '--json'];

interface Merged {
  runs: number;
  complete: boolean;
  shards: number;
  failures: { seed: string; check: string }[];
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-explore-merge-'));
  dirs.push(dir);
  return dir;
}

describe('lockstep explore merge', () => {
  it('four shards run as four processes and merged equal one unsharded run over the same seeds', async () => {
    const dir = await tempDir();
    const shards = [0, 1, 2, 3].map((i) =>
      startLockstep([...EXPLORATION, '--shard', `${i}/4`, '--out-dir', join(dir, 'failures'), '--summary', join(dir, `shard-${i}.json`)]),
    );
    const exits = await Promise.all(shards.map((s) => s.exited));
    // Each shard exits 1 when one of its seeds failed, 0 otherwise: never 2 or 70.
    const shardFailures = shards.map((s) => (JSON.parse(s.stdout().trim().split('\n').at(-1) ?? '{}') as Merged).failures.length);
    expect(exits.map((e) => e.code), shards.map((s) => s.stderr()).join('\n')).toEqual(shardFailures.map((n) => (n > 0 ? 1 : 0)));
    const whole = await runCli(...EXPLORATION, '--out-dir', join(await tempDir(), 'failures'));
    const one = JSON.parse(whole.out.at(-1) ?? '{}') as Merged;
    expect(one.failures.length).toBeGreaterThan(0);

    const merge = await runCli('explore', 'merge', dir, '--json');
    expect(merge.code).toBe(1);
    const merged = JSON.parse(merge.out.at(-1) ?? '{}') as Merged;
    expect(merged).toMatchObject({ runs: one.runs, complete: true, shards: 4 });
    const seedsAndChecks = (m: Merged) => m.failures.map((f) => `${f.seed} ${f.check}`);
    expect(seedsAndChecks(merged)).toEqual(seedsAndChecks(one));
    // The failure artifacts beside the summaries are not summaries, and are skipped.
    expect((await readdir(join(dir, 'failures'))).length).toBeGreaterThan(0);
  }, 240_000);

  it('refuses a missing shard and a shard of another exploration (exit 2), naming the files', async () => {
    const dir = await tempDir();
    const summary = (shard: string, mutant: string | null) => ({
      format: 'lockstep-explore-summary/1', scenario: 'swarm', variant: mutant ?? 'real-core', mutant,
      seeds: { first: 1, runs: 4, shard }, runs: 2, runsPlanned: 2, failures: [], runsToFirstFailure: null, workers: 1, wallMs: 10,
    });
    await writeFile(join(dir, 'a.json'), JSON.stringify(summary('0/2', null)));
    const missing = await runCli('explore', 'merge', join(dir, 'a.json'));
    expect(missing.code).toBe(2);
    expect(missing.err.join('\n')).toContain('shard 1/2 of 2 is missing');
    await writeFile(join(dir, 'b.json'), JSON.stringify(summary('1/2', 'no-seal')));
    const stranger = await runCli('explore', 'merge', dir);
    expect(stranger.code).toBe(2);
    expect(stranger.err.join('\n')).toMatch(/b\.json is not a shard of the same exploration as .*a\.json/);
    await writeFile(join(dir, 'b.json'), JSON.stringify(summary('1/2', null)));
    const clean = await runCli('explore', 'merge', dir);
    expect(clean.code).toBe(0);
    expect(clean.out[0]).toContain('all 4 seeds 1..4');
  });

  it('refuses a summary whose shard is not i/n with i below n (an extra shard would add seeds nobody asked for)', async () => {
    const dir = await tempDir();
    const summary = { format: 'lockstep-explore-summary/1', scenario: 'swarm', variant: 'real-core', mutant: null, seeds: { first: 1, runs: 4, shard: '2/2' }, runs: 2, runsPlanned: 2, failures: [], runsToFirstFailure: null, workers: 1, wallMs: 10 };
    await writeFile(join(dir, 'x.json'), JSON.stringify(summary));
    const run = await runCli('explore', 'merge', join(dir, 'x.json'));
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('seeds.shard: is not i/n with 0 <= i < n');
  });

  it('refuses a named file that is not a summary', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'x.json'), '{"scenario": "swarm"}');
    const run = await runCli('explore', 'merge', join(dir, 'x.json'));
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('is not an explore summary');
  });
});
