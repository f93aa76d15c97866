// The README's promises, run: every command line of its `sh` code blocks that can run offline (no etcd) is
// run in a scratch directory, in order within its block (a replay reads what the run before it wrote), and
// must exit as the README says: 0 unless its comment says `# exit N`. A newcomer following the README must
// never meet a hang, a stack trace or an exit code the README does not explain.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
/** Lines that do not run here, and why: the README's other tests and real etcd cover them. */
const NOT_HERE: readonly [RegExp, string][] = [
  [/^npm (ci|test)\b/, 'installs or runs the whole test suite (this test is part of it)'],
  [/^npm ci && npm start/, 'npm start is lockstep run --all, run from the scenarios block'],
  [/^npx lockstep (lock|demo|bench|init|pause-test|audit|serve|gate)\b/, 'needs a real etcd (their own tests start one: src/commands/lock.test.ts, init.test.ts, pause-test.test.ts, gate.etcd.test.ts, ...)'],
  [/^for s in .*npx lockstep gate\b/, 'five 5-minute gates on a binary the reader has (src/commands/gate.etcd.test.ts runs a short one)'],
  [/^psql\b/, "needs the owner's staging PostgreSQL (src/commands/pause-test.test.ts runs the kit on a throwaway one)"],
  [/(^| )classes\/ledger-writes/, "a resource owner's own repository's files (src/commands/pause-test.test.ts runs the flow end to end)"],
];

interface Line {
  readonly command: string;
  readonly exit: number;
  readonly block: number;
}

/** The command lines of the README's sh blocks, each with the exit code its comment gives (0 if none). */
function readmeLines(markdown: string): Line[] {
  const lines: Line[] = [];
  const blocks = markdown.split(/^```sh\n/m).slice(1).map((rest) => rest.split(/^```$/m)[0] ?? '');
  blocks.forEach((block, i) => {
    for (const raw of block.split('\n')) {
      const [code = '', comment = ''] = raw.split(/\s+#\s/, 2);
      const command = code.trim();
      if (command === '' || command.startsWith('#')) continue;
      lines.push({ command, exit: Number(/\bexit (\d+)/.exec(comment)?.[1] ?? 0), block: i });
    }
  });
  return lines;
}

function runShell(command: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const lockstep = `node ${JSON.stringify(join(REPO, 'bin', 'lockstep.mjs'))}`;
    const child = spawn('bash', ['-c', command.replace(/\bnpx lockstep\b/g, lockstep)], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}

let scratch = '';
let lines: Line[] = [];
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'lockstep-readme-'));
  // Relative paths in the README are from the repository's root: its examples are there too.
  await symlink(join(REPO, 'examples'), join(scratch, 'examples'));
  lines = readmeLines(await readFile(join(REPO, 'README.md'), 'utf8'));
});
afterAll(async () => rm(scratch, { recursive: true, force: true }));

describe("the README's commands", () => {
  it('are found, with the exit code each is documented to give', () => {
    expect(readmeLines('text\n```sh\nnpx lockstep list   # what there is\nnpx lockstep run x   # exit 2: no such scenario\n```\n')).toEqual([
      { command: 'npx lockstep list', exit: 0, block: 0 },
      { command: 'npx lockstep run x', exit: 2, block: 0 },
    ]);
    expect(lines.filter((l) => l.command.startsWith('npx lockstep')).length).toBeGreaterThan(8);
  });

  it('exit as the README says, with no stack trace', { timeout: 900_000 }, async () => {
    const ran: string[] = [];
    for (const line of lines) {
      if (NOT_HERE.some(([pattern]) => pattern.test(line.command))) continue;
      const { code, output } = await runShell(line.command, scratch);
      expect(code, `${line.command}\n${output}`).toBe(line.exit);
      expect(output, line.command).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      ran.push(line.command);
    }
    expect(ran.length).toBeGreaterThan(8);
  });
});
