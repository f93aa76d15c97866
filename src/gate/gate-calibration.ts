// The simulator's timing for `gate --compare-sim` (issue 32): this machine's `lockstep bench --profile`,
// chosen by the one rule `quorum` shares (src/files/bench-profile.ts: the named file, none, or the stored
// default when it exists), so the prediction is of this machine, not of the simulator's defaults.
import { type GateCalibration, calibrationOfProfile } from '../../scenarios/gate-prediction.js';
import { BadInput } from '../cli-errors.js';
import { chosenBenchProfile, DEFAULT_BENCH_PROFILE } from '../files/bench-profile.js';

/** The calibration a gate run uses: the named profile, the default one if it exists, or none. */
export async function calibrationFor(compareSim: boolean, benchProfile: string | undefined, defaultFile = DEFAULT_BENCH_PROFILE): Promise<GateCalibration | undefined> {
  if (benchProfile !== undefined && !compareSim) throw new BadInput('--bench-profile goes with --compare-sim: it times the simulator\'s prediction');
  if (!compareSim) return undefined;
  const chosen = await chosenBenchProfile(benchProfile, defaultFile);
  if (chosen === undefined) return undefined;
  const calibration = calibrationOfProfile(chosen.profile);
  return chosen.byDefault ? { ...calibration, source: `${calibration.source} (${chosen.file}, the default)` } : calibration;
}
