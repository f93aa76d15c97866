// Clock faults for real arbiter and client processes through libfaketime (issue 15; Debian's faketime
// 0.9.10, LD_PRELOAD), the real side of the simulator's clock-drift and clock-step faults.
//
// Measured on this machine with node 20 (src/gate/faketime/faketime.test.ts shows each):
// - A rate given when the process starts (`x0.5`) scales both its wall clock and its monotonic clock, so
//   its timers run slow: a 1 s setTimeout took ~2 s of real time. That is a holder whose clock runs slow
//   (ADR-12's margin is there for a bounded drift; the gate's negative control slows one past it).
// - Changing the rate while the process runs makes its clock jump (x1 -> x0.5 after 1.2 s jumped ~0.45 s
//   forward, not a change of pace): a clock-drift fault therefore takes effect when the process starts,
//   and the gate starts a drifted process under its rate from the beginning.
// - A step of the offset while the process runs, with the monotonic clock left alone
//   (FAKETIME_DONT_FAKE_MONOTONIC=1), moves Date.now() at once and no timer: what an NTP step does to a
//   host. lockstep's deadlines run on the monotonic clock (ADR-12), so a step must change nothing the
//   lock service decides; the gate checks that it does not.
// clock-drift {ppm} maps to rate 1 + ppm / 1e6; clock-step {deltaMs} to an offset step. A process gets
// one or the other: a rate, or steps (a rate re-based by an offset change would jump).
import { renameSync, writeFileSync } from 'node:fs';
import { type DebianProgram, ensureProgram } from '../../testing/debian-package.js';

/** Where Debian's libfaketime package puts the library (amd64; arm64 has its own multiarch directory). */
const LIBRARY_PATHS: Record<string, string> = {
  x64: '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  arm64: '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
};

const FAKETIME: DebianProgram = { name: 'faketime', debianPackage: 'faketime', commands: ['faketime'], overrideEnv: 'LOCKSTEP_FAKETIME_BINARY' };

/** The library to preload, installing Debian's faketime (with libfaketime) when missing and root. */
export async function ensureLibfaketime(): Promise<string> {
  await ensureProgram(FAKETIME);
  const library = LIBRARY_PATHS[process.arch];
  if (library === undefined) throw new Error(`libfaketime: no known library path for ${process.arch}; install faketime and name the library in LIBRARY_PATHS`);
  return library;
}

/** A rate for the process's whole life: both clocks, so its timers run at that pace. */
export function rateEnvironment(library: string, rate: number): Record<string, string> {
  if (!Number.isFinite(rate) || rate <= 0) throw new RangeError(`a clock rate must be a positive number, not ${rate}`);
  return { LD_PRELOAD: library, FAKETIME: `+0 x${rate}` };
}

/** The rate a drift of `ppm` parts per million gives (clock-drift faults). */
export function rateOfDrift(ppm: number): number {
  return 1 + ppm / 1_000_000;
}

/** Steps of the wall clock while the process runs, through a control file the gate rewrites. */
export class ClockSteps {
  private offsetMs = 0;

  constructor(readonly controlFile: string) {
    this.write();
  }

  environment(library: string): Record<string, string> {
    return { LD_PRELOAD: library, FAKETIME_TIMESTAMP_FILE: this.controlFile, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' };
  }

  /** Moves the process's wall clock by `deltaMs` now (negative: back). */
  step(deltaMs: number): void {
    if (!Number.isFinite(deltaMs)) throw new RangeError(`a clock step must be a number of ms, not ${deltaMs}`);
    this.offsetMs += deltaMs;
    this.write();
  }

  get totalOffsetMs(): number {
    return this.offsetMs;
  }

  private write(): void {
    // libfaketime's relative form: "+S" / "-S" seconds, fractions allowed.
    const seconds = this.offsetMs / 1000;
    // Temp + rename: libfaketime re-reads the file at every clock call (FAKETIME_NO_CACHE), and a reader
    // must never see it half-written (an empty file reads as no offset: the clock would jump back).
    const temporary = `${this.controlFile}.tmp`;
    writeFileSync(temporary, `${seconds >= 0 ? '+' : ''}${seconds}\n`);
    renameSync(temporary, this.controlFile);
  }
}
