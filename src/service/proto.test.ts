// The wire contract's guards (ADR-18): buf lint, buf breaking against the proto as committed on main, and
// the generated code under src/gen/ being exactly what buf generate makes from proto/ today.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const BIN = join(ROOT, 'node_modules', '.bin');
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-proto-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function buf(...args: string[]): { status: number | null; output: string } {
  // protoc-gen-es is found on PATH, as npx would put it.
  const run = spawnSync(join(BIN, 'buf'), args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PATH: `${BIN}:${process.env.PATH ?? ''}` } });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .sort();
}

/** proto/ as committed on main, extracted with git so it works in a worktree and in a fresh clone. */
function mainProto(): string | undefined {
  const listed = spawnSync('git', ['ls-tree', '--name-only', 'main', 'proto/'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0 || listed.stdout.trim() === '') return undefined;
  const into = join(scratch, 'main');
  execFileSync('mkdir', ['-p', into]);
  execFileSync('sh', ['-c', `git archive main proto | tar -x -C '${into}'`], { cwd: ROOT });
  return join(into, 'proto');
}

describe('the lock.v1 and admin.v1 contract', () => {
  it('passes buf lint', () => {
    const lint = buf('lint');
    expect(lint.output).toBe('');
    expect(lint.status).toBe(0);
  });

  const onMain = mainProto();
  // Until the first merge main has no proto/ to compare with; from then on every branch is checked.
  it.runIf(onMain !== undefined)('makes no breaking change to the proto as committed on main', () => {
    const breaking = buf('breaking', 'proto', '--against', onMain ?? '');
    expect(breaking.output).toBe('');
    expect(breaking.status).toBe(0);
  });

  it('catches a breaking change: a renumbered field (negative control for the check above)', () => {
    const before = join(scratch, 'before');
    cpSync(join(ROOT, 'proto'), join(before, 'proto'), { recursive: true });
    const after = join(scratch, 'after');
    cpSync(join(ROOT, 'proto'), join(after, 'proto'), { recursive: true });
    const file = join(after, 'proto', 'lockstep', 'lock', 'v1', 'lock.proto');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('uint32 wait_ms = 4;');
    writeFileSync(file, text.replace('uint32 wait_ms = 4;', 'uint32 wait_ms = 5;'));
    const unchanged = buf('breaking', join(before, 'proto'), '--against', join(before, 'proto'));
    expect(unchanged.status).toBe(0);
    const breaking = buf('breaking', join(after, 'proto'), '--against', join(before, 'proto'));
    expect(breaking.status).not.toBe(0);
    expect(breaking.output).toMatch(/field "4" with name "wait_ms" on message "AcquireRequest" was deleted|field "5" with name "wait_ms"/);
  });

  it('has generated code under src/gen/ exactly as buf generate makes it from proto/', () => {
    const out = join(scratch, 'generated');
    const generate = buf('generate', '--output', out);
    expect(generate.output).toBe('');
    expect(generate.status).toBe(0);
    const committed = join(ROOT, 'src', 'gen');
    const fresh = join(out, 'src', 'gen');
    expect(filesUnder(committed)).toEqual(filesUnder(fresh));
    expect(filesUnder(fresh).length).toBeGreaterThanOrEqual(3);
    for (const file of filesUnder(fresh)) {
      expect(readFileSync(join(committed, file), 'utf8'), `src/gen/${file} differs from buf generate: run npx buf generate, never edit it`).toBe(readFileSync(join(fresh, file), 'utf8'));
    }
  });
});
