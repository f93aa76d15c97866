// The CLI's one error boundary (src/cli.ts): what a command throws becomes one line and its own exit code.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadInput, OperationError } from './cli-errors.js';
import { type CliIo, ExitCode } from './cli-io.js';
import { EXIT_CODES_HELP, withErrorBoundary } from './cli.js';
import { runCli } from './testing/run-cli.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-boundary-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** A program whose one command `go` does `action`, run in the boundary; what it printed and its exit code. */
async function boundary(action: (io: CliIo) => Promise<void>): Promise<{ code: number; err: string[]; out: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const build = (io: CliIo): Command => {
    const program = new Command('lockstep').exitOverride();
    program.command('go').argument('[file]').action(() => action(io));
    return program;
  };
  const code = await withErrorBoundary(['go', 'in put.json'], { out: (t) => void out.push(t), err: (t) => void err.push(t) }, build);
  return { code, out, err };
}

describe('the error boundary', () => {
  it('exits 2 for bad input, with one line naming the command', async () => {
    expect(await boundary(() => Promise.reject(new BadInput('--seed "abc" is not a seed')))).toEqual({ code: 2, out: [], err: ['lockstep go: --seed "abc" is not a seed'] });
  });

  it('exits 70, not 1, for an unexpected error, in one line naming the command line, with no stack', async () => {
    const { code, err } = await boundary(() => Promise.reject(new TypeError('x is not a function\n    at nowhere (a.ts:1:1)')));
    expect(code).toBe(ExitCode.internal);
    expect(code).not.toBe(ExitCode.failed);
    expect(err).toEqual(['lockstep go: unexpected error (exit 70) in `lockstep go "in put.json"`: TypeError: x is not a function\\u000a    at nowhere (a.ts:1:1); this is a bug in lockstep: please report it with this line']);
  });

  it('names the operation and its input of a failed write, and of a system call no command wrapped', async () => {
    const write = await boundary(() => Promise.reject(new OperationError('write', '/out/run.json', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))));
    expect(write).toMatchObject({ code: 70, err: ['lockstep go: cannot write /out/run.json: no space left on device (ENOSPC) (exit 70: the system refused; nothing half-written was left)'] });
    const scandir = await boundary(() => readdir(join(dir, 'no-such')).then(() => undefined));
    expect(scandir.code).toBe(70);
    expect(scandir.err).toEqual([`lockstep go: cannot read the directory ${join(dir, 'no-such')}: no such file or directory (ENOENT) (exit 70: the system refused)`]);
  });

  it('reports a stack overflow in one line, exit 70', async () => {
    const deep = (n: number): number => deep(n + 1) + 1;
    const { code, err } = await boundary(async () => void deep(0));
    expect(code).toBe(70);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/RangeError: Maximum call stack size exceeded/);
  });

  it('escapes control characters in everything a command prints', async () => {
    const { err, out } = await boundary(async (io) => {
      io.out('name \u001b[31mred\u0007 and \u202eevil\nsecond line\tcolumn');
      throw new BadInput('file \u0000binary');
    });
    expect(out).toEqual(['name \\u001b[31mred\\u0007 and \\u202eevil\nsecond line\tcolumn']);
    expect(err).toEqual(['lockstep go: file \\u0000binary']);
  });

  it('says the exit codes under every command\'s --help', async () => {
    for (const command of [[], ['run'], ['class', 'check'], ['replay'], ['ttl']]) {
      const { code, out } = await runCli(...command, '--help');
      expect(code).toBe(0);
      expect(out.join('\n'), command.join(' ')).toContain(EXIT_CODES_HELP.trim().split('\n')[0]);
    }
  });
});
