import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

const run = (...argv: string[]) => runCli(...argv);

const dir = 'examples/histories';
const jsonl = (sub: string): string[] => readdirSync(join(dir, sub)).filter((f) => f.endsWith('.jsonl')).sort().map((f) => join(dir, sub, f));
/** The model and resource an example is meant for, from its name: kv-*, *-unfenced-*. */
const flags = (file: string): string[] => ['--model', file.includes('/kv-') ? 'kv' : 'lock', ...(file.includes('unfenced') ? ['--resource', 'unfenced'] : [])];

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
function scratchFile(name: string, lines: readonly unknown[], separator = '\n'): string {
  const path = join(scratch, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join(separator) + separator);
  return path;
}

describe('lockstep check: the example histories', () => {
  it.each(jsonl('legal'))('%s is linearizable: exit 0 and one summary line', async (file) => {
    const result = await run('check', file, ...flags(file));
    expect(result.err).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.out).toEqual([expect.stringMatching(/^ok: linearizable: \d+ operations? on \d+ keys? under the (lock|kv)/)]);
  });

  // Each illegal example: the key, and the lines of the operation that cannot take effect.
  const illegal: Record<string, { key: string; lines: string }> = {
    'kv-stale-read.jsonl': { key: 'config/leader', lines: 'lines 5-6' },
    'lock-double-grant.jsonl': { key: 'payments/ledger', lines: 'lines 3-4' },
    'lock-fence-accepted-stale.jsonl': { key: 'payments/ledger', lines: 'lines 8-9' },
    'lock-release-after-expiry.jsonl': { key: 'payments/ledger', lines: 'lines 6-7' },
    'lock-token-backwards.jsonl': { key: 'payments/ledger', lines: 'lines 5-6' },
    'lock-unfenced-stale-write.jsonl': { key: 'payments/ledger', lines: 'lines 8-9' },
  };

  it('has an expectation for every illegal example', () => {
    expect(jsonl('illegal').map((f) => f.split('/').at(-1)).sort()).toEqual(Object.keys(illegal).sort());
  });

  it.each(jsonl('illegal'))('%s is not: exit 1, naming the key and the lines', async (file) => {
    const expected = illegal[file.split('/').at(-1)!]!;
    const result = await run('check', file, ...flags(file));
    expect(result.code).toBe(1);
    expect(result.out[0]).toBe(`key ${JSON.stringify(expected.key)} is not linearizable under the ${file.includes('/kv-') ? 'kv (a register per key)' : `lock (${file.includes('unfenced') ? 'unfenced' : 'fenced'} resource)`} model`);
    expect(result.out.filter((line) => line.startsWith('    - '))).toEqual([expect.stringContaining(`- ${expected.lines}: `)]);
    expect(result.out.at(-1)).toMatch(new RegExp(`^violation: 1 of 1 key not linearizable \\(${JSON.stringify(expected.key).replace(/[/]/g, '\\/')}\\)`));
  });

  it('passes the unfenced example under a fenced resource: the stale write came before the new holder wrote', async () => {
    expect((await run('check', join(dir, 'illegal/lock-unfenced-stale-write.jsonl'), '--model', 'lock')).code).toBe(0);
  });

  const malformed: Record<string, string> = {
    'completion-without-invoke.jsonl': ':4: process b completes acquire ("ok") without an open invoke',
    'missing-time.jsonl': ':2: "time" is missing',
    'not-json.jsonl': ':3: not a JSON value: ',
    'token-as-number.jsonl': `:2: acquire by a: an ok acquire's value: give the token as a decimal string`,
  };

  it.each(jsonl('malformed'))('%s is bad input: exit 2, naming the line', async (file) => {
    const result = await run('check', file, '--model', 'lock');
    expect(result.code).toBe(2);
    expect(result.out).toEqual([]);
    expect(result.err).toEqual([expect.stringContaining(`${file}${malformed[file.split('/').at(-1)!]!}`)]);
  });
});

describe('lockstep check: input', () => {
  it('skips blank lines and reads CRLF files, keeping line numbers', async () => {
    const file = scratchFile(
      'crlf.jsonl',
      ['', { process: 'a', type: 'invoke', f: 'put', key: 'k', value: 1, time: 0 }, '  ', { process: 'a', type: 'ok', f: 'put', key: 'k', time: 1 }, { process: 'b', type: 'ok', f: 'get', key: 'k', value: 1, time: 2 }],
      '\r\n',
    );
    const result = await run('check', file, '--model', 'kv');
    expect(result.code).toBe(2);
    expect(result.err).toEqual([`${file}:5: process b completes get ("ok") without an open invoke; write the invoke line first`]);
  });

  it('names the line of the open invoke a problem concerns', async () => {
    const file = scratchFile('nested.jsonl', [{ process: 'a', type: 'invoke', f: 'acquire', key: 'k', time: 0 }, '', { process: 'a', type: 'invoke', f: 'release', key: 'k', value: { token: '5' }, time: 1 }]);
    const result = await run('check', file, '--model', 'lock');
    expect(result.err).toEqual([`${file}:3: process a invokes release while its acquire has not completed; a process runs one operation at a time (its open invoke: line 1)`]);
  });

  it('reports every bad line, up to 20, and how many more', async () => {
    const file = scratchFile('many.jsonl', Array.from({ length: 25 }, (_, i) => `{"bad": ${i}`));
    const result = await run('check', file, '--model', 'lock');
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(21);
    expect(result.err.at(-1)).toBe('... and 5 more problems');
  });

  it('refuses a history with nothing in it: a truncated file must not pass a gate', async () => {
    const result = await run('check', scratchFile('empty.jsonl', []), '--model', 'lock');
    expect(result).toMatchObject({ code: 2, out: [], err: [expect.stringMatching(/empty\.jsonl: has no events; a history is one JSON event a line/)] });
  });

  it.each([
    [['--model', 'redis'], /--model "redis" is not a model; give --model lock or --model kv/],
    [['--model', 'kv', '--resource', 'fenced'], /--resource applies to --model lock only/],
    [['--model', 'lock', '--resource', 'maybe'], /--resource "maybe" is not a resource kind/],
    [['--model', 'lock', '--budget', '0'], /--budget "0" is not a step count/],
    [['--model', 'lock', '--budget', '1e6'], /--budget "1e6" is not a step count/],
    [[], /required option '--model <model>' not specified/],
  ])('refuses %j with exit 2', async (options, message) => {
    const result = await run('check', join(dir, 'legal/lock-contention.jsonl'), ...options);
    expect(result.code).toBe(2);
    expect(result.err.join('\n')).toMatch(message);
  });

  it('names a file it cannot read', async () => {
    const result = await run('check', 'no-such.jsonl', '--model', 'lock');
    expect(result).toEqual({ code: 2, out: [], err: ['no-such.jsonl: cannot read the file: no such file; check the path'] });
  });
});

describe('lockstep check: unknown', () => {
  it('exits 3 when the search budget runs out, naming the key', async () => {
    const result = await run('check', join(dir, 'legal/lock-contention.jsonl'), '--model', 'lock', '--budget', '2');
    expect(result.code).toBe(3);
    expect(result.out).toEqual([
      'key "payments/ledger": unknown: the search spent its budget of 2 steps on 6 operations; rerun with a larger --budget',
      expect.stringMatching(/^unknown: the search budget ran out on 1 of 1 key \("payments\/ledger"\), no violation in the others; /),
    ]);
  });
});

describe('lockstep check --json', () => {
  it('prints one object for a linearizable history', async () => {
    const result = await run('check', join(dir, 'legal/lock-unknown-outcomes.jsonl'), '--model', 'lock', '--json');
    expect(result.code).toBe(0);
    expect(result.out).toHaveLength(1);
    expect(JSON.parse(result.out[0]!)).toEqual({
      ok: true,
      verdict: 'ok',
      file: join(dir, 'legal/lock-unknown-outcomes.jsonl'),
      model: 'lock (fenced resource)',
      events: 12,
      operations: 6,
      keys: 1,
      unknownOutcomes: 3,
      noEffect: 1,
      stepsPerKey: 1_000_000,
      illegal: [],
      unknown: [],
      summary: expect.stringMatching(/^ok: linearizable/),
    });
  });

  it('gives the failure of an illegal key as data, with lines', async () => {
    const result = await run('check', join(dir, 'illegal/lock-double-grant.jsonl'), '--model', 'lock', '--json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out.at(-1)!) as { ok: boolean; verdict: string; illegal: { key: string; prefix: unknown[]; deadline: unknown; blocked: unknown[]; explanation: string[] }[] };
    expect(report).toMatchObject({ ok: false, verdict: 'illegal' });
    const [key] = report.illegal;
    expect(key).toMatchObject({
      key: 'payments/ledger',
      prefix: [{ lines: [1, 2], process: 'a', operation: 'acquire → token 281474976710661', call: 0, return: 2, stateAfter: expect.stringMatching(/^held by token/) }],
      deadline: { lines: [3, 4], process: 'b' },
      blocked: [{ lines: [3, 4], process: 'b', reason: 'the key is held by token 281474976710661, and an acquire needs it free' }],
    });
    expect(key?.explanation[0]).toBe('key "payments/ledger" is not linearizable under the lock (fenced resource) model');
  });

  it('gives bad input as errors with lines, exit 2', async () => {
    const file = join(dir, 'malformed/missing-time.jsonl');
    const result = await run('check', file, '--model', 'lock', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.out.at(-1)!)).toEqual({ ok: false, verdict: 'bad-input', file, errors: [{ line: 2, message: expect.stringMatching(/"time" is missing/) }] });
  });
});
