// How a measuring command runs (issue 32): its progress lines on stderr, the load average beside its
// figures (a measurement on a shared machine says how shared it was), and Ctrl-C: the first SIGINT or
// SIGTERM aborts the measurement, whose `finally` stops every process it started; a second exits at once
// and the process reaper's exit hook kills what is left (src/testing/process-reaper.ts).
import { loadavg } from 'node:os';
import { roundTo } from '../../core/numbers.js';
import type { CliIo } from '../cli-io.js';

/** Exit code of a run stopped by Ctrl-C, as shells report SIGINT (as lockstep bench). */
export const INTERRUPTED_EXIT_CODE = 130;

export interface MeasureContext {
  readonly signal: AbortSignal;
  /** A progress line (stderr), at most every few seconds. */
  readonly progress: (line: string) => void;
}

export class MeasureInterrupted extends Error {
  constructor() {
    super('interrupted; the measured processes were stopped');
    this.name = 'MeasureInterrupted';
  }
}

/** The 1, 5 and 15 minute load averages, rounded. */
export function loadAverage(): [number, number, number] {
  const [one, five, fifteen] = loadavg();
  return [roundTo(one ?? 0, 1), roundTo(five ?? 0, 1), roundTo(fifteen ?? 0, 1)];
}

/** Runs `measure` with progress on stderr and Ctrl-C handled; returns its exit code, or 130 when interrupted. */
export async function runMeasurement(io: CliIo, command: string, measure: (context: MeasureContext) => Promise<number>): Promise<number> {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) {
      io.err(`lockstep ${command}: interrupted again; exiting now (the measured processes are killed on exit)`);
      process.exit(INTERRUPTED_EXIT_CODE);
    }
    io.err(`lockstep ${command}: interrupted; stopping the measured processes (Ctrl-C again to exit at once)`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await measure({ signal: controller.signal, progress: (line) => io.err(`lockstep ${command}: ${line}`) });
  } catch (error) {
    if (error instanceof MeasureInterrupted || controller.signal.aborted) {
      io.err(`lockstep ${command}: interrupted; the measured processes were stopped`);
      return INTERRUPTED_EXIT_CODE;
    }
    throw error; // the CLI's error boundary: one line, exit 70 (src/cli.ts)
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
