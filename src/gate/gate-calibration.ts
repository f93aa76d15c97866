// The simulator's timing for `gate --compare-sim` (issue 32): this machine's `lockstep bench --profile`,
// by default when one is stored where the docs tell an operator to write it (DEFAULT_BENCH_PROFILE), so
// the prediction is of this machine, not of the simulator's defaults. `--bench-profile FILE` names
// another; `--bench-profile none` asks for the defaults. A file that is not a hardware profile is refused.
import { existsSync } from 'node:fs';
import { type BenchProfileShape, type GateCalibration, calibrationOfProfile } from '../../scenarios/gate-prediction.js';
import { BadInput } from '../cli-errors.js';
import { InputFileError, MIB, readInputFile } from '../files/read-input.js';

/** Where `lockstep bench --local 3 --profile` is written for the gate to find (docs/gate.md). */
export const DEFAULT_BENCH_PROFILE = '.lockstep-tmp/bench-profile.json';

/** The calibration a gate run uses: the named profile, the default one if it exists, or none. */
export async function calibrationFor(compareSim: boolean, benchProfile: string | undefined, defaultFile = DEFAULT_BENCH_PROFILE): Promise<GateCalibration | undefined> {
  if (benchProfile !== undefined && !compareSim) throw new BadInput('--bench-profile goes with --compare-sim: it times the simulator\'s prediction');
  if (!compareSim || benchProfile === 'none') return undefined;
  if (benchProfile !== undefined) return readCalibration(benchProfile);
  if (!existsSync(defaultFile)) return undefined;
  const calibration = await readCalibration(defaultFile);
  return { ...calibration, source: `${calibration.source} (${defaultFile}, the default)` };
}

/** A `lockstep bench --profile FILE` read as the simulator's timing; anything else is refused, naming the file. */
async function readCalibration(file: string): Promise<GateCalibration> {
  const fix = 'give a file written by lockstep bench --local 3 --profile FILE';
  let text: string;
  try {
    text = await readInputFile(file, { what: 'a bench profile (lockstep bench --profile FILE)', maxBytes: 16 * MIB });
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw new BadInput(`--bench-profile ${file}: ${error.reason}; ${fix}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BadInput(`--bench-profile ${file} is not JSON (${(error as Error).message}); ${fix}`);
  }
  const profile = value as Partial<BenchProfileShape> | null;
  const samples = (part: unknown): boolean => Array.isArray((part as { samplesMs?: unknown } | undefined)?.samplesMs) && ((part as { samplesMs: unknown[] }).samplesMs).every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0);
  if (profile === null || typeof profile !== 'object' || profile.kind !== 'lockstep-hardware-profile' || !samples(profile.walFsync) || !samples(profile.loopbackRtt)) {
    throw new BadInput(`--bench-profile ${file} is not a hardware profile (kind "lockstep-hardware-profile" with walFsync and loopbackRtt samples); ${fix}`);
  }
  return calibrationOfProfile(profile as BenchProfileShape);
}
