// `lockstep run` and `lockstep replay` under bad input: the contract of contract-kit.ts, case by case.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';
import { badFiles, expectRefusal, type Fixtures, fixtures } from './contract-kit.js';

let scratch: Fixtures;
let artifact: Record<string, unknown>;
beforeAll(async () => {
  scratch = await fixtures();
  const saved = join(scratch.dir, 'saved.json');
  expect((await runCli('run', 'pause-test', '--seed', '3', '--out', saved)).code).toBe(0);
  artifact = JSON.parse(await readFile(saved, 'utf8')) as Record<string, unknown>;
});
afterAll(async () => scratch.cleanup());

/** A copy of the saved artifact with some fields changed, as a file. */
const edited = (name: string, fields: Record<string, unknown>): Promise<string> => scratch.text(name, JSON.stringify({ ...artifact, ...fields }));
const faultsFile = (name: string, faults: unknown): Promise<string> => scratch.text(name, JSON.stringify(faults));

describe('lockstep run: bad input exits 2, names it, writes nothing', () => {
  it.each([
    ['no scenario', ['run'], ['name a scenario']],
    ['an unknown scenario', ['run', 'nope'], ['"nope"', 'pause-test']],
    ['an unknown variant', ['run', 'pause-test', '--variant', 'nope'], ['"nope"', 'fenced, unfenced']],
    ['an empty seed', ['run', 'pause-test', '--seed', ''], ['--seed ""', 'whole number']],
    ['a negative seed', ['run', 'pause-test', '--seed', '-1'], ['--seed "-1"']],
    ['a seed that is not a number', ['run', 'pause-test', '--seed', 'abc'], ['--seed "abc"']],
    ['a seed past any number', ['run', 'pause-test', '--seed', '1e309'], ['--seed "1e309"']],
    ['a name with --all', ['run', 'pause-test', '--all'], ['--all', 'pause-test']],
    ['--variant with --all', ['run', '--all', '--variant', 'fenced'], ['--variant']],
    ['--html with --all', ['run', '--all', '--html', 'r.html'], ['--html']],
    ['an unknown flag', ['run', 'pause-test', '--bogus'], ['--bogus']],
  ])('%s', async (_what, argv, names) => {
    await expectRefusal(scratch, argv, { code: 2, names });
  });

  it.each([
    ['a directory', () => scratch.dir, /is a directory; give a file in it/],
    ['an empty name', () => '', /is empty; give a file name/],
    ['a missing directory', () => join(scratch.dir, 'no', 'run.json'), /its directory .* does not exist/],
    ['a path under a file', () => join(scratch.file, 'run.json'), /is a file, not a directory/],
  ])('--out and --html into %s, before the run', async (_what, path, says) => {
    for (const flag of ['--out', '--html']) await expectRefusal(scratch, ['run', 'pause-test', flag, path()], { code: 2, names: [flag], says });
  });

  it('--out and --html on one path', async () => {
    const path = join(scratch.dir, 'both');
    await expectRefusal(scratch, ['run', 'pause-test', '--out', path, '--html', path], { code: 2, names: ['--out', '--html'] });
  });

  it('a --faults file that is missing, a directory, empty, binary or too large', async () => {
    for (const [what, path, says] of [...badFiles(scratch), ['a file over 1 MiB', await scratch.huge('huge-faults.json', 2 * 1024 * 1024), /above the limit of 1 MiB/] as const]) {
      const expected = what === 'an empty file' ? /\(schedule\) is not JSON/ : says;
      await expectRefusal(scratch, ['run', 'pause-test', '--faults', path], { code: 2, names: [path], says: expected });
    }
  });

  it.each([
    ['not JSON', '[{"atMs": 1000,]', '(schedule)', /is not JSON/],
    ['not a list', '{"atMs": 1000}', '(schedule)', /must be a list of faults/],
    ['an unknown kind', [{ atMs: 1000, kind: 'explode', target: 'alice' }], 'faults[0].kind', /allowed: pause, resume/],
    ['a process the variant does not have', [{ atMs: 1000, kind: 'pause', target: 'zed' }], 'faults[0].target', /allowed: alice, bob/],
    ['a negative time', [{ atMs: -5, kind: 'pause', target: 'alice' }], 'faults[0].atMs', /from 0 to the run's horizon/],
    ['a time past the horizon', [{ atMs: 1e9, kind: 'pause', target: 'alice' }], 'faults[0].atMs', /horizon \(300000\)/],
    ['a pause longer than the horizon', [{ atMs: 1000, kind: 'pause', target: 'alice', forMs: 1e12 }], 'faults[0].forMs', /at most the run's horizon/],
  ])('a --faults schedule with %s, naming the field', async (_what, content, field, says) => {
    const path = await scratch.text(`faults-${field.replace(/\W/g, '')}.json`, typeof content === 'string' ? content : JSON.stringify(content));
    await expectRefusal(scratch, ['run', 'pause-test', '--faults', path], { code: 2, names: [path, field], says });
  });
});

describe('lockstep replay: bad input exits 2, names it, runs and writes nothing', () => {
  it('an artifact that is missing, a directory, empty, binary or too large', async () => {
    for (const [what, path, says] of [...badFiles(scratch), ['a file over 256 MiB', await scratch.huge('huge-artifact.json', 257 * 1024 * 1024), /above the limit of 256 MiB/] as const]) {
      await expectRefusal(scratch, ['replay', path], { code: 2, names: [path], says: what === 'an empty file' ? /\(file\) is not JSON/ : says });
    }
  });

  it.each([
    ['not an artifact', { format: 'something/1' }, 'format', /not "lockstep.run\/1"/],
    ['an unknown scenario', { scenario: 'nope' }, 'no scenario "nope"', /pause-test/],
    ['an unknown variant', { variant: 'nope' }, 'no variant "nope"', /fenced, unfenced/],
    ['a seed that is not one', { seed: '-1' }, 'seed "-1"', /whole number/],
    ['an unknown fault kind', { faults: [{ atMs: 1000, kind: 'explode', target: 'alice' }] }, 'faults[0].kind', /allowed: pause/],
    ['a target the variant does not have', { faults: [{ atMs: 1000, kind: 'pause', target: 'zed' }] }, 'faults[0].target', /not a process of pause-test \/ fenced/],
    ['a negative time', { faults: [{ atMs: -5, kind: 'pause', target: 'alice' }] }, 'faults[0].atMs', /from 0 to the run's horizon/],
  ])('an artifact with %s, naming the field', async (what, fields, name, says) => {
    const path = await edited(`${what.replace(/\W+/g, '-')}.json`, fields);
    await expectRefusal(scratch, ['replay', path], { code: 2, names: [path, name], says });
  });

  it('--out into a directory, before the replay', async () => {
    const path = await edited('fine.json', {});
    await expectRefusal(scratch, ['replay', path, '--out', scratch.directory], { code: 2, names: ['--out'], says: /is a directory/ });
  });
});

describe('lockstep run and replay: a schedule that never lets the workload finish', () => {
  it('ends at the horizon with a verdict (the horizon check failed; exit 3, since the edited artifact still records its old checks), and --out keeps the artifact', async () => {
    // Before the horizon, this replay exited 13 with no output: node found nothing left to run.
    // Both holders frozen for good: the kit runs on the second holder's clock, so it never finishes (alice alone: the kit gives up on her, inconclusive).
    const path = await edited('frozen.json', { faults: [{ atMs: 1000, kind: 'pause', target: 'alice' }, { atMs: 1000, kind: 'pause', target: 'bob' }] });
    const out = join(scratch.dir, 'frozen-again.json');
    const run = await runCli('replay', path, '--out', out, '--json');
    expect(run.code).toBe(3); // the record (ok) is not the replay's (horizon failed): issue 18's exit for an edited artifact
    const result = JSON.parse(run.out.at(-1) ?? '{}') as { checks: { name: string; ok: boolean; detail: string }[]; replay: string };
    expect(result.checks[0]).toMatchObject({ name: 'horizon', ok: false });
    expect(result.checks[0]?.detail).toMatch(/had not finished by the run's horizon, 300000 ms .*not running then: alice paused/);
    expect(result.replay).toBe(`lockstep replay ${out}`);
    const saved = JSON.parse(await readFile(out, 'utf8')) as { faults: unknown[]; checks: { name: string }[] };
    expect(saved.faults).toEqual([{ atMs: 1000, kind: 'pause', target: 'alice' }, { atMs: 1000, kind: 'pause', target: 'bob' }]);
    expect(saved.checks[0]?.name).toBe('horizon');
  });

  it('run --faults runs an engineer\'s own schedule, records it, and names the file in its replay command', async () => {
    const faults = [{ atMs: 1000, kind: 'crash', target: '@leader' }, { atMs: 9000, kind: 'restart', target: '@member-1' }];
    const path = await faultsFile('leader-crash.json', faults);
    const run = await runCli('run', 'pause-test', '--variant', 'unfenced', '--seed', '4', '--faults', path, '--json');
    expect([0, 1]).toContain(run.code);
    const result = JSON.parse(run.out.at(-1) ?? '{}') as { replay: string };
    expect(result.replay).toBe(`lockstep run pause-test --variant unfenced --seed 4 --faults ${path}`);
    const out = join(scratch.dir, 'leader-crash-run.json');
    expect((await runCli('run', 'pause-test', '--variant', 'unfenced', '--seed', '4', '--faults', path, '--out', out)).code).toBe(run.code);
    const saved = JSON.parse(await readFile(out, 'utf8')) as { faults: unknown; replay: string };
    expect(saved.faults).toEqual(faults);
    const again = await runCli('replay', out, '--json');
    expect(JSON.parse(again.out.at(-1) ?? '{}')).toMatchObject({ sameTraceHash: true, sameVerdict: true });
  });
});
