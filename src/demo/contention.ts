// Several `lockstep lock` processes contend for one key on a real etcd; each runs a command that
// appends `start <identity> <token>` and `end <identity> <token>` to a shared journal. O_APPEND writes land
// in one order, so the journal shows whether two commands ever ran at once, and in which order tokens
// were used. The journal stays in a private temporary directory and the tokens stay in this file: the
// report names holders and says whether each token rose, without the values (ADR-22, issue 18 item 3).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';

const LOCKSTEP_BIN = join(REPO_ROOT, 'bin', 'lockstep.mjs');

export interface ContentionOptions {
  readonly endpoints: readonly string[];
  readonly classFile: string;
  readonly key: string;
  readonly processes: number;
  /** How long each command holds the lock. */
  readonly holdMs: number;
  readonly waitSeconds: number;
}

export interface ContentionRun {
  readonly identity: string;
  readonly exitCode: number | null;
  readonly stderr: string;
}

export interface ContentionReport {
  readonly runs: readonly ContentionRun[];
  /** The holders' identities in the order their commands started. */
  readonly order: readonly string[];
  /** How many different tokens the commands were given (one per command when all is well). */
  readonly distinctTokens: number;
  /** Journal lines where a command started while another was still running, by identity. */
  readonly overlaps: readonly string[];
  /** Whether each command's token was above the one before it, in the order they ran. */
  readonly tokensStrictlyIncrease: boolean;
  readonly allSucceeded: boolean;
}

// The guarded command: a tiny node program, so the demo needs nothing but node.
const GUARDED = `
const fs = require('node:fs');
const [journal, holdMs, identity] = process.argv.slice(1);
fs.appendFileSync(journal, 'start ' + identity + ' ' + process.env.LOCKSTEP_TOKEN + '\\n');
setTimeout(() => fs.appendFileSync(journal, 'end ' + identity + ' ' + process.env.LOCKSTEP_TOKEN + '\\n'), Number(holdMs));
`;

export async function runContention(options: ContentionOptions): Promise<ContentionReport> {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-contention-'));
  const journal = join(dir, 'journal');
  try {
    const runs = await Promise.all(
      Array.from({ length: options.processes }, (_, i) => runOne(options, `demo-worker-${i + 1}`, journal)),
    );
    const lines = (await readFile(journal, 'utf8').catch(() => '')).split('\n').filter((line) => line.length > 0);
    return { runs, ...analyseJournal(lines), allSucceeded: runs.every((run) => run.exitCode === 0) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads the journal: every start must follow the previous command's end, and tokens must rise. */
export function analyseJournal(lines: readonly string[]): Pick<ContentionReport, 'order' | 'distinctTokens' | 'overlaps' | 'tokensStrictlyIncrease'> {
  const order: string[] = [];
  const tokens: bigint[] = [];
  const overlaps: string[] = [];
  let running: string | undefined;
  for (const [index, line] of lines.entries()) {
    const [event, identity = '', token = ''] = line.split(' ');
    if (event === 'start') {
      if (running !== undefined) overlaps.push(`line ${index + 1}: ${identity} started while ${running} was running`);
      running = identity;
      order.push(identity);
      tokens.push(/^\d+$/.test(token) ? BigInt(token) : -1n);
    } else if (event === 'end' && running === identity) {
      running = undefined;
    }
  }
  const tokensStrictlyIncrease = tokens.every((token, i) => token >= 0n && (i === 0 || token > (tokens[i - 1] ?? 0n)));
  return { order, distinctTokens: new Set(tokens).size, overlaps, tokensStrictlyIncrease };
}

function runOne(options: ContentionOptions, identity: string, journal: string): Promise<ContentionRun> {
  const args = [
    LOCKSTEP_BIN, 'lock',
    '--endpoints', options.endpoints.join(','),
    '--class', options.classFile,
    '--identity', identity,
    '--wait', `${options.waitSeconds}s`,
    options.key, '--',
    process.execPath, '-e', GUARDED, journal, String(options.holdMs), identity,
  ];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', (error) => done({ identity, exitCode: null, stderr: `${stderr}${error.message}` }));
    child.on('exit', (exitCode) => done({ identity, exitCode, stderr }));
  });
}
