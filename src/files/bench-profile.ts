// Which `lockstep bench --profile` a command times its model by (issue 32), one rule for `gate
// --compare-sim` and `quorum`: `--bench-profile FILE` names one, `--bench-profile none` asks for the
// simulator's defaults, and without the flag the profile stored where the docs tell an operator to write
// it (DEFAULT_BENCH_PROFILE) is used when it exists, so a prediction is of this machine by default. A
// file that is not a hardware profile is refused, naming the file and the fix.
import { existsSync } from 'node:fs';
import type { BenchProfileShape } from '../../scenarios/gate-prediction.js';
import { BadInput } from '../cli-errors.js';
import { InputFileError, MIB, readInputFile } from './read-input.js';

/** Where `lockstep bench --local 3 --profile` is written for the gate and the planner to find (docs/gate.md). */
export const DEFAULT_BENCH_PROFILE = '.lockstep-tmp/bench-profile.json';

/** One concurrency's CPU costs (bench/profile.ts cpuByConcurrency): etcd's per write, the bench client's per call. */
export interface ProfileCpuRow {
  readonly requestCostMs?: number;
  readonly applyCostMs?: number;
  readonly clientCostMsPerCall?: number;
  readonly fromConcurrency?: number;
  /** The served lock.v1 hop's CPU per call (bench/profile.ts servedHopCosts); absent in profiles before it. */
  readonly hopClientCostMsPerCall?: number;
  readonly hopServeCostMsPerCall?: number;
  /** The service path's measured acquire p50 and p99 at this concurrency (bench/profile.ts ServedHopCosts); absent before: not fitted. */
  readonly serviceAcquireP50Ms?: number;
  readonly serviceAcquireP99Ms?: number;
  /** The acquisitions those two rest on when they are the bench's fit target (bench/fit-target.ts); absent: the interleaved run's. */
  readonly serviceAcquireSamples?: number;
}

/** A stored profile read structurally (bench/profile.ts HardwareProfile; src does not need bench's types). */
export type StoredBenchProfile = Omit<BenchProfileShape, 'cpuByConcurrency'> & { readonly cpuByConcurrency?: readonly ProfileCpuRow[]; readonly env?: { readonly members?: number } };

/** A profile to time by: its content, its file, and whether it was the default's. */
export interface ChosenBenchProfile {
  readonly profile: StoredBenchProfile;
  readonly file: string;
  readonly byDefault: boolean;
}

/** The profile `--bench-profile` (undefined when not given) chooses, or undefined for the simulator's defaults. */
export async function chosenBenchProfile(flag: string | undefined, defaultFile = DEFAULT_BENCH_PROFILE): Promise<ChosenBenchProfile | undefined> {
  if (flag === 'none') return undefined;
  if (flag !== undefined) return { profile: await readBenchProfile(flag), file: flag, byDefault: false };
  if (!existsSync(defaultFile)) return undefined;
  return { profile: await readBenchProfile(defaultFile), file: defaultFile, byDefault: true };
}

/** A `lockstep bench --profile FILE` read and checked; anything else is refused, naming the file. */
async function readBenchProfile(file: string): Promise<StoredBenchProfile> {
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
  return profile as StoredBenchProfile;
}
