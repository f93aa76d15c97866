// A process's local clocks as functions of true time. The monotonic one (what the Clock port reads and
// timers run on) is piecewise linear, local = anchorLocal + (true - anchorTrue) * rate, re-anchored
// whenever the rate changes (drift, which moves both clocks, as libfaketime's rate does) or it jumps (a
// monotonic step: a deliberate fault no real kernel makes). The wall clock is the monotonic one plus an
// offset that wall steps move (an NTP step, libfaketime's offset with FAKETIME_DONT_FAKE_MONOTONIC): it
// moves no timer (issue 32). Pure arithmetic; the process owns the timers that depend on it.

export interface ClockSpec {
  /** Rate error in parts per million: +100 runs 100 µs fast per true second. Default 0. */
  readonly driftPpm?: number;
  /** Local time minus true time when the process is made. Default 0 (local time starts equal to true time). */
  readonly offsetMs?: number;
}

const PPM = 1e-6;
/** Bound on the ulp steps taken to land a timer exactly on its local due time (a few suffice). */
const MAX_ULP_STEPS = 64;

export class LocalClock {
  private anchorTrueMs: number;
  private anchorLocalMs: number;
  private rate: number;
  private driftPpmValue: number;
  private wallOffsetMs = 0;

  constructor(trueNowMs: number, spec: ClockSpec = {}) {
    this.driftPpmValue = validDrift(spec.driftPpm ?? 0);
    this.rate = 1 + this.driftPpmValue * PPM;
    this.anchorTrueMs = trueNowMs;
    this.anchorLocalMs = trueNowMs + (spec.offsetMs ?? 0);
  }

  get driftPpm(): number {
    return this.driftPpmValue;
  }

  /** Local time at true time `trueMs` (>= the last anchor). */
  localAt(trueMs: number): number {
    return this.anchorLocalMs + (trueMs - this.anchorTrueMs) * this.rate;
  }

  /**
   * The earliest true time, not before `trueNowMs`, at which local time reaches `localMs`: exact, so a
   * timer that fires there sees now() >= its due time despite floating-point rounding.
   */
  trueTimeOf(localMs: number, trueNowMs: number): number {
    if (this.localAt(trueNowMs) >= localMs) return trueNowMs;
    let trueMs = Math.max(trueNowMs, this.anchorTrueMs + (localMs - this.anchorLocalMs) / this.rate);
    for (let step = 0; this.localAt(trueMs) < localMs; step++) {
      if (step >= MAX_ULP_STEPS) throw new Error(`LocalClock: could not place local time ${localMs} on the true time line`);
      trueMs = nextUp(trueMs);
    }
    return trueMs;
  }

  /** Changes the rate from `trueNowMs` on; local time is continuous. */
  setDriftPpm(driftPpm: number, trueNowMs: number): void {
    this.reanchor(trueNowMs);
    this.driftPpmValue = validDrift(driftPpm);
    this.rate = 1 + this.driftPpmValue * PPM;
  }

  /** The wall clock at true time `trueMs`: the monotonic clock plus every wall step so far. */
  wallAt(trueMs: number): number {
    return this.localAt(trueMs) + this.wallOffsetMs;
  }

  /** Jumps the wall clock by `deltaMs`; the monotonic clock, and every timer, are untouched. */
  stepWall(deltaMs: number): void {
    this.wallOffsetMs += finiteStep(deltaMs);
  }

  /** Jumps the monotonic clock by `deltaMs` at `trueNowMs`. A negative step breaks the Clock port's monotonicity: a deliberate fault. */
  stepMonotonic(deltaMs: number, trueNowMs: number): void {
    finiteStep(deltaMs);
    this.reanchor(trueNowMs);
    this.anchorLocalMs += deltaMs;
  }

  private reanchor(trueNowMs: number): void {
    this.anchorLocalMs = this.localAt(trueNowMs);
    this.anchorTrueMs = trueNowMs;
  }
}

function finiteStep(deltaMs: number): number {
  if (!Number.isFinite(deltaMs)) throw new RangeError(`clock step must be a finite number of ms, got ${deltaMs}`);
  return deltaMs;
}

function validDrift(driftPpm: number): number {
  if (!(Number.isFinite(driftPpm) && driftPpm > -1e6)) {
    throw new RangeError(`clock driftPpm must be a finite number above -1,000,000 (the clock must run forwards), got ${driftPpm}`);
  }
  return driftPpm;
}

const bits = new Float64Array(1);
const words = new BigInt64Array(bits.buffer);

/** The next float above a finite x >= 0. */
export function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  bits[0] = x;
  words[0] = words[0]! + 1n;
  return bits[0];
}
