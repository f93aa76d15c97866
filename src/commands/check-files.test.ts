// `lockstep check` of several histories in one process (issue 16): one verdict per file, a summary, and
// the exit code of the worst verdict.
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';
import { worstExit } from './check-files.js';

const legal = ['examples/histories/legal/lock-contention.jsonl', 'examples/histories/legal/lock-pause-fenced.jsonl'];
const illegal = 'examples/histories/illegal/lock-double-grant.jsonl';
const malformed = 'examples/histories/malformed/missing-time.jsonl';

describe('lockstep check of several files', () => {
  it('gives one verdict line per file, named by it, and a summary; exit 0 when all pass', async () => {
    const result = await runCli('check', '--model', 'lock', ...legal);
    expect(result.code).toBe(0);
    expect(result.out).toEqual([...legal.map((f) => expect.stringMatching(new RegExp(`^${f}: ok: linearizable: `))), '2 files: 2 ok, 0 not linearizable, 0 unknown, 0 bad input; exit 0']);
  });

  it('judges every file, whatever comes first, and exits with the worst: a violation over bad input', async () => {
    const result = await runCli('check', '--model', 'lock', malformed, legal[0]!, illegal);
    expect(result.code).toBe(1);
    expect(result.err).toEqual([expect.stringContaining(`${malformed}:2: "time" is missing`)]);
    expect(result.out.filter((l) => /^examples\//.test(l))).toEqual([`${malformed}: bad input: nothing judged (the problems are on standard error)`, expect.stringMatching(/: ok: /), expect.stringMatching(new RegExp(`^${illegal}: violation: 1 of 1 key`))]);
    expect(result.out[result.out.indexOf(`${malformed}: bad input: nothing judged (the problems are on standard error)`) + 2]).toMatch(/^key "payments\/ledger" is not linearizable/);
    expect(result.out.at(-1)).toBe('3 files: 1 ok, 1 not linearizable, 0 unknown, 1 bad input; exit 1');
  });

  it('with --json prints one object holding each file\'s report', async () => {
    const result = await runCli('check', '--model', 'lock', '--json', legal[0]!, malformed);
    expect(result.code).toBe(2);
    expect(result.out).toHaveLength(1);
    const report = JSON.parse(result.out[0]!);
    expect(report).toMatchObject({ ok: false, verdict: 'bad-input', counts: { ok: 1, illegal: 0, unknown: 0, 'bad-input': 1 } });
    expect(report.files.map((f: { file: string; verdict: string }) => [f.file, f.verdict])).toEqual([[legal[0], 'ok'], [malformed, 'bad-input']]);
  });

  it('says a bad option once, not once per file', async () => {
    const result = await runCli('check', '--model', 'nope', ...legal);
    expect(result.code).toBe(2);
    expect(result.err).toEqual(['lockstep check: --model "nope" is not a model; give --model lock or --model kv']);
  });

  it('ranks verdicts violation, bad input, unknown, ok', () => {
    expect(worstExit([0, 3, 2, 1])).toBe(1);
    expect(worstExit([0, 3, 2])).toBe(2);
    expect(worstExit([3, 0])).toBe(3);
    expect(worstExit([0, 0])).toBe(0);
  });
});
