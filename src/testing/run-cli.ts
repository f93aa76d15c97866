// Runs the lockstep command line in-process, as a test would type it, and captures what it prints.
import { main } from '../cli.js';
import type { CliIo } from '../cli-io.js';

export interface CliRun {
  readonly code: number;
  /** Lines printed on stdout and stderr. */
  readonly out: string[];
  readonly err: string[];
}

export async function runCli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const lines = (into: string[]) => (text: string) => void into.push(...text.replace(/\n$/, '').split('\n'));
  const io: CliIo = { out: lines(out), err: lines(err) };
  const code = await main(argv, io);
  return { code, out, err };
}
