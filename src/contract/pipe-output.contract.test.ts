// `bin/lockstep.mjs` through a pipe: every line the command printed reaches the reader. It exited at once
// when the command was done, and writes to a pipe are asynchronous in node, so a long output
// (`lockstep class check ... | tail`) was cut off after its first few hundred lines.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';
import { type Fixtures, fixtures } from './contract-kit.js';

let scratch: Fixtures;
beforeAll(async () => {
  scratch = await fixtures();
});
afterAll(async () => scratch.cleanup());

function piped(argv: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['bin/lockstep.mjs', ...argv], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', (code) => done({ code, stdout }));
  });
}

describe('lockstep through a pipe', () => {
  it('delivers all of a long output, and its exit code', { timeout: 120_000 }, async () => {
    // 3,000 classes with a problem each: some 600 KB of output, far past a pipe's buffer.
    const classes = Array.from({ length: 3000 }, (_, i) => `kind: LockClass\napiVersion: lockstep.dev/v1\nmetadata:\n  namespace: ns\n  name: c${i}\nspec:\n  purpose: correctness\n`).join('---\n');
    const file = await scratch.text('many.yaml', classes);
    const argv = ['class', 'check', '--now', '2026-01-01', file];
    const inProcess = await runCli(...argv);
    const { code, stdout } = await piped(argv);
    expect(code).toBe(inProcess.code);
    expect(stdout.length).toBeGreaterThan(300_000);
    expect(stdout.trimEnd().split('\n')).toEqual(inProcess.out);
  });
});
