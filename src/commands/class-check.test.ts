import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

const run = (...argv: string[]) => runCli(...argv);

const NOW = ['--now', '2026-11-30'];
const yamlIn = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().map((f) => join(dir, f));
const validClasses = yamlIn('examples/classes');
const invalidClasses = yamlIn('examples/classes/invalid');
const invalidGrants = yamlIn('examples/grants/invalid');
/** `file:line: namespace/name: field: message; fix` */
const PROBLEM_LINE = /^(?<file>[^:]+):(?<line>\d+): (?<namespace>[^/ ]+)\/(?<name>[^: ]+): (?<field>[\w.()]+): (?<message>.+); (?<fix>[^;]+)$/;

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-class-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
function scratchFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('lockstep class check: valid input', () => {
  it('exits 0 on the example classes and prints one summary line', async () => {
    expect(validClasses.length).toBeGreaterThanOrEqual(4);
    const result = await run('class', 'check', ...NOW, ...validClasses);
    expect(result).toEqual({ code: 0, out: [`ok: 4 classes, 2 pause-test results, 0 grants in ${validClasses.length} files (today is 2026-11-30)`], err: [] });
  });

  it('exits 0 on the example grants', async () => {
    const files = yamlIn('examples/grants');
    const result = await run('class', 'check', ...NOW, ...files);
    expect(result.code).toBe(0);
    // Counted from the files themselves (the workload grants and, since issue 12, an operator grant).
    const grants = files.reduce((n, f) => n + (readFileSync(f, 'utf8').match(/^kind: LockGrant$/gm) ?? []).length, 0);
    expect(grants).toBeGreaterThan(0);
    expect(result.out.at(-1)).toMatch(new RegExp(`^ok: 0 classes, 0 pause-test results, ${grants} grants in ${files.length} file `));
  });

  it('finds a pause test in another file of the same check, and misses it when that file is left out', async () => {
    const alone = await run('class', 'check', ...NOW, 'examples/classes/scheduler-leader.yaml');
    expect(alone.code).toBe(1);
    expect(alone.out[0]).toMatch(/^examples\/classes\/scheduler-leader\.yaml:10: batch\/scheduler-leader: spec\.enforcement: is fenced, but no PauseTestResult/);
    const together = await run('class', 'check', ...NOW, 'examples/classes/scheduler-leader.yaml', 'examples/classes/pause-tests.yaml');
    expect(together.code).toBe(0);
  });

  it('expires the example pause tests a year after they ran, by --now', async () => {
    const ledger = ['examples/classes/ledger-writes.yaml'];
    expect((await run('class', 'check', '--now', '2027-10-31', ...ledger)).code).toBe(0);
    const expired = await run('class', 'check', '--now', '2027-11-01', ...ledger);
    expect(expired.code).toBe(1);
    expect(expired.out[0]).toMatch(/ran on 2026-11-01, 365 days before today/);
  });
});

describe('lockstep class check: invalid documents exit 1', () => {
  it.each([...invalidClasses, ...invalidGrants])('%s breaks exactly the rule its header names', async (file) => {
    const expected = /^# expect: (\S+)$/m.exec(readFileSync(file, 'utf8'))?.[1];
    expect(expected).toBeDefined();
    const result = await run('class', 'check', ...NOW, file);
    expect(result.code).toBe(1);
    const problems = result.out.slice(0, -1);
    expect(problems.length).toBeGreaterThan(0);
    for (const line of problems) {
      const match = PROBLEM_LINE.exec(line);
      expect(match?.groups?.['file'], line).toBe(file);
      expect(match?.groups?.['field'], line).toBe(expected);
    }
    expect(result.out.at(-1)).toMatch(/^invalid: \d+ problems?; checked \d+ documents? in 1 file \(today is 2026-11-30\)$/);
  });

  it('prints the field, the rule and the fix, with the line of the field', async () => {
    const result = await run('class', 'check', ...NOW, 'examples/classes/invalid/unknown-field.yaml');
    expect(result.out[0]).toBe(
      'examples/classes/invalid/unknown-field.yaml:14: reporting/nightly-rollup: spec.ttlSecond: is not a field of a LockClass spec; did you mean ttlSeconds? (unknown fields are refused so a typo never falls back to a default); rename it to ttlSeconds',
    );
  });

  it('still exits 1 when valid and invalid files are checked together, and reports every problem', async () => {
    const result = await run('class', 'check', ...NOW, ...validClasses, 'examples/classes/invalid/fenced-without-resource.yaml', 'examples/classes/invalid/missing-tier.yaml');
    expect(result.code).toBe(1);
    expect(result.out.slice(0, -1).map((line) => PROBLEM_LINE.exec(line)?.groups?.['field'])).toEqual(['spec.resource', 'spec.tier']);
  });
});

describe('lockstep class check: unreadable input exits 2', () => {
  it('names a missing file and judges nothing', async () => {
    const result = await run('class', 'check', ...NOW, 'examples/classes/ledger-writes.yaml', 'no-such-file.yaml');
    expect(result.code).toBe(2);
    expect(result.err).toEqual(['no-such-file.yaml: cannot read the file: no such file; check the path', 'lockstep class check: 1 of the files could not be read; nothing is judged from a partial read: fix them and run again']);
    expect(result.out).toEqual([]);
  });

  it('names the file, line and column of a YAML syntax error', async () => {
    const file = scratchFile('tabs.yaml', 'apiVersion: lockstep.dev/v1\nkind: LockClass\nspec:\n  purpose: correctness\n\ttier: coord\n');
    const result = await run('class', 'check', ...NOW, file);
    expect(result.code).toBe(2);
    expect(result.err).toHaveLength(2);
    expect(result.err[1]).toMatch(/^lockstep class check: 1 of the files could not be read/);
    expect(result.err[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:1: not readable YAML: `));
  });

  it('reports every unreadable file, not just the first', async () => {
    const file = scratchFile('dup.yaml', 'a: 1\na: 2\n');
    const result = await run('class', 'check', ...NOW, file, 'missing.yaml', 'examples');
    expect(result.code).toBe(2);
    expect(result.err.map((line) => line.split(':')[0])).toEqual([file, 'missing.yaml', 'examples', 'lockstep class check']);
    expect(result.err[2]).toMatch(/^examples: cannot read the file: it is a directory; pass the YAML files in it/);
  });

  it.each([['2026-02-30'], ['30.11.2026'], ['today']])('refuses --now %s', async (now) => {
    const result = await run('class', 'check', '--now', now, ...validClasses);
    expect(result.code).toBe(2);
    expect(result.err[0]).toMatch(/--now .* is not a calendar date; give it as YYYY-MM-DD/);
  });

  it('refuses a call without files', async () => {
    const result = await run('class', 'check', ...NOW);
    expect(result.code).toBe(2);
    expect(result.err.join('\n')).toMatch(/missing required argument 'files'/);
  });
});

describe('lockstep class check --json', () => {
  it('prints one JSON object on the last line, with the valid classes', async () => {
    const result = await run('class', 'check', ...NOW, '--json', ...validClasses);
    expect(result.code).toBe(0);
    expect(result.out).toHaveLength(1);
    const report = JSON.parse(result.out.at(-1)!) as { ok: boolean; files: string[]; classes: { namespace: string; name: string; ttlSeconds: number }[]; problems: unknown[] };
    expect(report.ok).toBe(true);
    expect(report.files).toEqual(validClasses);
    expect(report.problems).toEqual([]);
    expect(report.classes.map((c) => `${c.namespace}/${c.name}:${c.ttlSeconds}`).sort()).toEqual([
      'batch/scheduler-leader:15',
      'payments/ledger-writes:10',
      'reporting/statement-export:60',
      'search/cache-warmer:30',
    ]);
  });

  it('reports problems as objects and exits 1', async () => {
    const file = 'examples/classes/invalid/ttl-out-of-range.yaml';
    const result = await run('class', 'check', ...NOW, '--json', file);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out.at(-1)!) as { ok: boolean; classes: unknown[]; problems: unknown[] };
    expect(report.ok).toBe(false);
    expect(report.classes).toEqual([]);
    expect(report.problems).toEqual([
      { source: file, line: 13, namespace: 'reporting', name: 'nightly-rollup', field: 'spec.ttlSeconds', message: expect.stringMatching(/^is 600;/), fix: expect.any(String) },
    ]);
  });

  it('reports unreadable input as errors and exits 2', async () => {
    const result = await run('class', 'check', ...NOW, '--json', 'missing.yaml');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.out.at(-1)!)).toMatchObject({ ok: false, errors: [{ file: 'missing.yaml', message: expect.stringMatching(/no such file/) }] });
  });

  it('defaults --now to today\'s date in UTC', async () => {
    const before = new Date().toISOString().slice(0, 10);
    const result = await run('class', 'check', '--json', 'examples/classes/statement-export.yaml');
    const after = new Date().toISOString().slice(0, 10);
    expect(result.code).toBe(0);
    expect([before, after]).toContain((JSON.parse(result.out.at(-1)!) as { today: string }).today);
  });
});
