// The owner's own guarded write, as a command (`lockstep pause-test ... -- <command...>`): it gets the
// token in LOCKSTEP_TOKEN (as `lockstep lock` gives it), the key in LOCKSTEP_KEY and the value to write
// in LOCKSTEP_VALUE. Between its statements it may name a pause point, so the kit can freeze it there:
// it writes `pause-point NAME` as a line to file descriptor 3 (LOCKSTEP_PAUSE_FD) and reads a line back
// before it goes on (in sh: `echo "pause-point between" >&3; read -r _ <&3`). The record is read back
// by another command (--read-command, run by sh), which prints the value the record holds.
// Exit codes are reported, never trusted: the kit judges by what the read command prints.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Duplex } from 'node:stream';
import type { ResourceState, WriteAnswer } from '../../core/pause-test/index.js';
import { formatToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';

export const PAUSE_FD = 3;
const PAUSE_LINE = /^pause-point (\S+)\s*$/;
const TAIL_CHARS = 300;

export interface CommandWriteSpec {
  readonly command: readonly string[];
  /** A shell command that prints the record's current value on stdout. */
  readonly read: string;
  readonly key: string;
}

/** Runs the write command once; `pause` is awaited at each pause point it names, and answered with `go`. */
export function runWriteCommand(spec: CommandWriteSpec, token: FencingToken, value: string, pause: (point: string) => Promise<void>): Promise<WriteAnswer> {
  const [program, ...args] = spec.command;
  if (program === undefined) throw new RangeError('no write command given after --');
  const env = { ...process.env, LOCKSTEP_TOKEN: formatToken(token), LOCKSTEP_KEY: spec.key, LOCKSTEP_VALUE: value, LOCKSTEP_PAUSE_FD: String(PAUSE_FD) };
  return new Promise((resolve) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString('utf8')).slice(-TAIL_CHARS));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const channel = child.stdio[PAUSE_FD] as Duplex;
    channel.on('error', () => undefined); // the command may close it without reading
    createInterface({ input: channel }).on('line', (line) => {
      const point = PAUSE_LINE.exec(line)?.[1];
      if (point === undefined) return;
      void pause(point).then(() => channel.writable && channel.write('go\n'));
    });
    child.once('error', (error) => resolve({ answer: 'failed', detail: `could not run ${JSON.stringify(program)}: ${error.message}` }));
    child.once('close', (code, signal) => {
      const tail = output.trim().split('\n').at(-1) ?? '';
      const said = tail === '' ? '' : `: ${tail}`;
      if (signal !== null) resolve({ answer: 'failed', detail: `killed by ${signal}${said}` });
      else resolve(code === 0 ? { answer: 'accepted', detail: `exit code 0${said}` } : { answer: 'refused', detail: `exit code ${code}${said}` });
    });
  });
}

/** Runs the read command; what it prints (trimmed) is the record's value, nothing printed is none. */
export function runReadCommand(spec: CommandWriteSpec): Promise<ResourceState> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', spec.read], { env: { ...process.env, LOCKSTEP_KEY: spec.key }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (err = (err + chunk.toString('utf8')).slice(-TAIL_CHARS)));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`--read-command exited with ${code}${err.trim() === '' ? '' : `: ${err.trim()}`}; it must print the record's value and exit 0`));
        return;
      }
      const value = out.trim();
      resolve(value === '' ? { value: undefined } : { value });
    });
  });
}
