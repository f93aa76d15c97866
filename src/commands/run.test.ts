import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

describe('lockstep list / run / replay', () => {
  it('lists every scenario with its variants and expectations', async () => {
    const { code, out } = await runCli('list', '--json');
    expect(code).toBe(0);
    const listed = JSON.parse(out.at(-1) ?? '{}') as { scenarios: { name: string; variants: { name: string; expect: string }[] }[] };
    const pause = listed.scenarios.find((s) => s.name === 'pause-test');
    expect(pause?.variants).toEqual([{ name: 'fenced', expect: 'pass', description: expect.any(String) }, { name: 'unfenced', expect: 'violation', shows: ['fence'], description: expect.any(String) }]);
    // Every violation variant names the checks it fails; no pass variant claims any.
    const variants = listed.scenarios.flatMap((s) => s.variants as { expect: string; shows?: string[] }[]);
    expect(variants.filter((v) => v.expect === 'violation').every((v) => (v.shows ?? []).length > 0)).toBe(true);
    expect(variants.filter((v) => v.expect === 'pass').some((v) => v.shows !== undefined)).toBe(false);
  });

  it('exits 1 on a violation and names the failed check in --json', async () => {
    const { code, out } = await runCli('run', 'pause-test', '--variant', 'unfenced', '--seed', '3', '--json');
    expect(code).toBe(1);
    const result = JSON.parse(out.at(-1) ?? '{}') as { ok: boolean; asDeclared: boolean; checks: { name: string; ok: boolean }[]; replay: string };
    expect([result.ok, result.asDeclared]).toEqual([false, true]);
    expect(result.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['fence']);
    expect(result.replay).toBe('lockstep run pause-test --variant unfenced --seed 3');
  });

  it('saves an artifact that replays to the same trace hash, and notices a tampered one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-run-'));
    const file = join(dir, 'run.json');
    expect((await runCli('run', 'pause-test', '--seed', '5', '--out', file)).code).toBe(0);
    const replayed = await runCli('replay', file, '--json');
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.out.at(-1) ?? '{}')).toMatchObject({ sameTraceHash: true, sameVerdict: true });
    const saved = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...saved, traceHash: '0000000000000000' }));
    expect((await runCli('replay', file)).code).toBe(1);
  });

  it('documents --html in run --help', async () => {
    const { code, out } = await runCli('run', '--help');
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/--html <file>\s+write a self-contained HTML report/);
  });

  it.each([
    [['run', 'pause-test', '--html', '/no/such/dir/r.html'], /--html "\/no\/such\/dir\/r\.html": its directory \/no\/such\/dir does not exist; create it or choose another path/],
    [['run', '--all', '--html', 'r.html'], /--html writes the report of one run/],
    [['run', 'no-such-scenario'], /no scenario "no-such-scenario"/],
    [['run', 'pause-test', '--variant', 'nope'], /has no variant "nope"/],
    [['run'], /name a scenario/],
    [['replay', '/no/such/artifact.json'], /no\/such\/artifact\.json/],
  ])('refuses %j with exit 2', async (args, message) => {
    const { code, err } = await runCli(...args);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(message);
  });
});
