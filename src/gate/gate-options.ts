// `lockstep gate`'s input, checked whole before anything starts (issue 15): every refusal names the flag
// or the schedule's field, the rule and the fix, and the command exits 2 having started nothing. A
// --faults file goes through the one validator every schedule goes through (scenarios/fault-schedule.ts),
// against the processes this run will have, then through what the real cluster can do.
import { access, constants, readFile } from 'node:fs/promises';
import { FaultScheduleError, checkFaultSchedule, type KnownProcess } from '../../scenarios/fault-schedule.js';
import type { Fault } from '../../scenarios/faults.js';
import { BadInput } from '../cli-errors.js';
import { parseDuration } from '../duration.js';
import type { Resource } from './client/client-protocol.js';
import { MAX_SIMULATED_RUNS } from '../../scenarios/gate-comparison.js';
import type { GateCalibration, GateShape } from '../../scenarios/gate-prediction.js';
import { calibrationFor } from './gate-calibration.js';
import { type Episode, FOCUS_KINDS, drawSchedule } from './gate-schedule.js';
import { REAL_CANNOT } from './real-fault-target.js';
import { type StartClock, arbiterNames, clientNames, memberNames } from './real-cluster.js';

export interface GateFlags {
  members: string;
  arbiters: string;
  clients: string;
  keys: string;
  duration: string;
  seed: string;
  faults?: string;
  resource: string;
  etcdBinary?: string;
  out?: string;
  json?: boolean;
  slowHolder?: boolean;
  compareSim?: boolean;
  compareRuns?: string;
  benchProfile?: string;
  focus?: string;
}

/** The workload's shape is the one the simulator predicts (scenarios/gate-prediction.ts), so a plan is a shape. */
export interface GatePlan extends GateShape {
  readonly faults: Fault[];
  /** Where the schedule came from: `--faults FILE` or `drawn from seed S`. */
  readonly scheduleSource: string;
  readonly resource: Resource;
  readonly etcdBinary?: string;
  readonly out: string;
  readonly json: boolean;
  readonly clocks: ReadonlyMap<string, StartClock>;
  /** --slow-holder: client-1 starts at x0.3. */
  readonly slowHolder: boolean;
  /** --compare-sim: simulated runs of the schedule pooled into the prediction; 0 for no comparison. */
  readonly compareRuns: number;
  /** The simulator's timing from this machine's `lockstep bench --profile` (gate-calibration.ts). */
  readonly calibration?: GateCalibration;
  /** --focus: the one kind of episode the drawn schedule repeats. */
  readonly focus?: Episode;
}

const MAX_ARBITERS = 5;
const MAX_CLIENTS = 16;
const MAX_KEYS = 64;
const MIN_DURATION_MS = 10_000;
const MAX_DURATION_MS = 3_600_000;
/** --slow-holder: a holder whose clock runs at x0.3, far past what ADR-12's margin covers. */
export const SLOW_HOLDER_PPM = -700_000;

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new BadInput(`${flag} ${JSON.stringify(text)} must be a whole number from ${min} to ${max}`);
  return Number(text);
}

export async function planGate(flags: GateFlags): Promise<GatePlan> {
  if (flags.members !== '3' && flags.members !== '5') throw new BadInput(`--members ${JSON.stringify(flags.members)} must be 3 or 5: an etcd cluster that keeps a quorum through one member's fault (3) or two (5)`);
  const members = Number(flags.members) as 3 | 5;
  const arbiters = wholeNumber('--arbiters', flags.arbiters, 1, MAX_ARBITERS);
  const clients = wholeNumber('--clients', flags.clients, 1, MAX_CLIENTS);
  const keys = wholeNumber('--keys', flags.keys, 1, MAX_KEYS);
  let durationMs: number;
  try {
    durationMs = parseDuration(flags.duration, '--duration', { maxMs: MAX_DURATION_MS, why: 'the longest gate run' });
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
  if (durationMs < MIN_DURATION_MS) throw new BadInput(`--duration ${JSON.stringify(flags.duration)} is shorter than 10s; a gate needs time for faults and for the service to recover from them`);
  if (flags.resource !== 'fenced' && flags.resource !== 'unfenced') throw new BadInput(`--resource ${JSON.stringify(flags.resource)} must be fenced (the reference fence, ADR-16) or unfenced (a plain file: the negative control)`);
  if (flags.seed.trim() === '') throw new BadInput('--seed must not be empty');
  if (flags.etcdBinary !== undefined) {
    try {
      await access(flags.etcdBinary, constants.X_OK);
    } catch {
      throw new BadInput(`--etcd-binary ${flags.etcdBinary} is not an executable file; give the path of an etcd server binary (e.g. a 3.5 release's etcd)`);
    }
  }
  const compareRuns = flags.compareSim === true ? wholeNumber('--compare-runs', flags.compareRuns ?? '10', 1, MAX_SIMULATED_RUNS) : 0;
  if (flags.compareSim !== true && flags.compareRuns !== undefined) throw new BadInput('--compare-runs goes with --compare-sim: how many simulated runs of the schedule the prediction pools');
  const calibration = await calibrationFor(flags.compareSim === true, flags.benchProfile);
  const focus = focusOf(flags);
  const names = { members: memberNames(members), arbiters: arbiterNames(arbiters), clients: clientNames(clients) };
  const processes: KnownProcess[] = [
    ...names.members.map((name) => ({ name, role: 'member' })),
    ...names.arbiters.map((name) => ({ name, role: 'arbiter' })),
    ...names.clients.map((name) => ({ name, role: 'client' })),
  ];
  let faults: Fault[];
  let scheduleSource: string;
  if (flags.faults !== undefined) {
    let text: string;
    try {
      text = await readFile(flags.faults, 'utf8');
    } catch (error) {
      throw new BadInput(`--faults ${flags.faults}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new BadInput(`--faults ${flags.faults} is not JSON (${(error as Error).message}); write a list such as [{"atMs": 5000, "kind": "pause", "target": "@holder", "forMs": 8000}]`);
    }
    try {
      faults = checkFaultSchedule(value, { processes, variant: `this gate (${members} members, ${arbiters} arbiters, ${clients} clients)`, horizonMs: durationMs });
    } catch (error) {
      if (error instanceof FaultScheduleError) throw new BadInput(`--faults ${flags.faults}: ${error.message}`);
      throw error;
    }
    scheduleSource = `--faults ${flags.faults}`;
  } else {
    faults = drawSchedule(flags.seed, { durationMs, ...names, ...(flags.slowHolder === true ? { clockedClients: [names.clients[0] as string] } : {}), ...(focus === undefined ? {} : { only: focus }) });
    scheduleSource = `drawn from seed ${flags.seed}${focus === undefined ? '' : `, --focus ${focus}`}`;
  }
  const clocks = clocksOf(faults, flags.faults ?? 'the drawn schedule', names);
  if (flags.slowHolder === true) {
    const slow = names.clients[0] as string;
    if (clocks.has(slow)) throw new BadInput(`--slow-holder slows ${slow}, and the schedule gives its clock a fault already; leave one out`);
    clocks.set(slow, { kind: 'rate', ppm: SLOW_HOLDER_PPM });
    faults = [{ atMs: 0, kind: 'clock-drift', target: slow, ppm: SLOW_HOLDER_PPM }, ...faults];
  }
  return { members, arbiters, clients, keys, durationMs, seed: flags.seed, faults, scheduleSource, resource: flags.resource, ...(flags.etcdBinary === undefined ? {} : { etcdBinary: flags.etcdBinary }), out: flags.out ?? `lockstep-gate-${flags.seed}`, json: flags.json === true, clocks, slowHolder: flags.slowHolder === true, compareRuns, ...(calibration === undefined ? {} : { calibration }), ...(focus === undefined ? {} : { focus }) };
}

/** --focus KIND: one kind of the gate's episodes, again and again (issue 32: enough draws of one kind for an interval). */
function focusOf(flags: GateFlags): Episode | undefined {
  if (flags.focus === undefined) return undefined;
  if (flags.faults !== undefined) throw new BadInput('--focus draws the schedule; it does not go with --faults (write the repeated faults into the file instead)');
  if (!(FOCUS_KINDS as readonly string[]).includes(flags.focus)) throw new BadInput(`--focus ${JSON.stringify(flags.focus)} must be one of the gate's episodes: ${FOCUS_KINDS.join(', ')}`);
  return flags.focus as Episode;
}

/**
 * What the real cluster can do with the schedule's faults, checked before the run: kinds it cannot
 * inject are refused with its reason, and clock faults need a process named at the start (libfaketime
 * gives a process its clock when it starts: a rate from then on, or a control file for steps).
 */
function clocksOf(faults: readonly Fault[], source: string, names: { members: string[]; arbiters: string[]; clients: string[] }): Map<string, StartClock> {
  const clocks = new Map<string, StartClock>();
  faults.forEach((fault, i) => {
    const at = `${source}: faults[${i}]`;
    const why = REAL_CANNOT[fault.kind];
    if (why !== undefined) throw new BadInput(`${at}.kind is ${JSON.stringify(fault.kind)}, which the gate cannot inject on real processes: ${why}`);
    if (fault.kind === 'crash' && fault.powerLoss === true) throw new BadInput(`${at}.powerLoss: a power loss cannot be injected into a real process here (no disk fault injection); leave powerLoss out`);
    if ((fault.kind === 'crash' || fault.kind === 'restart') && names.clients.includes(fault.target)) throw new BadInput(`${at}.target ${fault.target} is a client: the gate crashes and restarts members and arbiters, not clients (a restarted client would need a new name in the history); pause it instead`);
    if (fault.kind !== 'clock-drift' && fault.kind !== 'clock-step') return;
    if (fault.target.startsWith('@') || names.members.includes(fault.target)) throw new BadInput(`${at}.target ${JSON.stringify(fault.target)}: a clock fault names an arbiter or a client (libfaketime is set when the process starts, so a role resolved later cannot be; etcd members keep their own clocks)`);
    const kind = fault.kind === 'clock-drift' ? 'rate' : 'steps';
    const known = clocks.get(fault.target);
    if (known !== undefined && (known.kind !== kind || (fault.kind === 'clock-drift' && known.kind === 'rate' && known.ppm !== fault.ppm))) {
      throw new BadInput(`${at}: ${fault.target} has another clock fault already; a real process gets one drift (from its start) or steps, not both (a rate changed while it runs makes its clock jump)`);
    }
    if (fault.kind === 'clock-drift' && fault.atMs !== 0) throw new BadInput(`${at}.atMs is ${fault.atMs}: a real process's clock drift starts with the process (libfaketime); give atMs 0`);
    clocks.set(fault.target, fault.kind === 'clock-drift' ? { kind: 'rate', ppm: fault.ppm } : { kind: 'steps' });
  });
  return clocks;
}
