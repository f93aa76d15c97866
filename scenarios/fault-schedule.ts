// A fault schedule given to a run (scenarios/faults.ts), checked before it reaches the simulator, by the one
// validator every way in shares: `lockstep replay` and `lockstep run --faults FILE` (src/commands/run.ts),
// the web runner's editor and its worker (src/web), and the explorer (explore.ts). Every refusal names the
// fault's index and field, the rule, and what is allowed. The rules are written per fault kind against the
// Fault type itself, so a kind or field added to faults.ts fails to compile here until it is checked too.
// Targets are checked against the processes the variant's own run had (when known, variant-schedule.ts);
// every time is inside the run's horizon (horizon.ts), so a schedule that passes runs to a verdict.
import type { Fault } from './faults.js';
import { DEFAULT_HORIZON_MS } from './horizon.js';

/** A process of the run as the timeline lists it (scenarios/timeline-capture.ts TimelineProcess). */
export interface KnownProcess {
  readonly name: string;
  readonly role: string;
}

export interface ScheduleContext {
  /** The variant's processes; without them any target name is accepted (the simulator names a bad one). */
  readonly processes?: readonly KnownProcess[];
  /** For messages: "pause-test / fenced". */
  readonly variant?: string;
  /** The run's horizon (ms after the workload starts): no fault time or duration may reach past it. Default DEFAULT_HORIZON_MS. */
  readonly horizonMs?: number;
}

export class FaultScheduleError extends Error {
  constructor(readonly field: string, rule: string) {
    super(`fault schedule: ${field} ${rule}`);
    this.name = 'FaultScheduleError';
  }
}

/** Put a limit on everything (STYLE.md): far more than any scenario's own schedule or the explorer's. */
export const MAX_FAULTS = 200;
/** Process names a refusal lists before it says how many more there are. */
const MAX_NAMES_SHOWN = 12;
const ROLES = ['@leader', '@follower', '@member-N', '@holder'] as const;
const MEMBER_ROLES = ['@leader', '@follower', '@member-N'] as const;
const MILLION = 1_000_000;
const EXAMPLE = '[{"atMs": 1000, "kind": "pause", "target": "alice", "forMs": 15000}]';

interface Check {
  readonly fault: Readonly<Record<string, unknown>>;
  readonly all: readonly Readonly<Record<string, unknown>>[];
  readonly context: ScheduleContext;
}

/** A rule returns why the value is refused and what is allowed, or undefined when it is fine. */
type Rule = (value: unknown, check: Check) => string | undefined;
type Required = { readonly rule: Rule; readonly optional?: false };
type Optional = { readonly rule: Rule; readonly optional: true };
type FaultOf<F, K> = F extends { readonly kind: infer Kinds } ? (K extends Kinds ? F : never) : never;
type FieldRules<F> = { readonly [P in Exclude<keyof F, 'kind'>]-?: undefined extends F[P] ? Optional : Required };

const describe = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'missing' : JSON.stringify(v) ?? String(v));

const number =
  (rule: (horizonMs: number) => string, ok: (n: number, horizonMs: number) => boolean): Rule =>
  (v, { context }) => {
    const horizonMs = context.horizonMs ?? DEFAULT_HORIZON_MS;
    return typeof v === 'number' && Number.isFinite(v) && ok(v, horizonMs) ? undefined : `is ${describe(v)}; it must be ${rule(horizonMs)}`;
  };
const msFromStart = number((h) => `a number of ms from the start of the workload, from 0 to the run's horizon (${h})`, (n, h) => n >= 0 && n <= h);
const durationMs = number((h) => `a number of ms above 0, at most the run's horizon (${h})`, (n, h) => n > 0 && n <= h);
const extraMs = number((h) => `a number of ms from 0 to the run's horizon (${h})`, (n, h) => n >= 0 && n <= h);
const anyMs = number((h) => `a number of ms from -${h} to ${h}, the run's horizon (negative steps the clock back)`, (n, h) => Math.abs(n) <= h);
// sim/process/local-clock.ts: the clock must run forwards; and at most twice as fast, which is far past any real drift.
const ppm = number(() => `a number of ppm above -${MILLION} and at most ${MILLION} (the clock must run forwards, at most twice as fast)`, (n) => n > -MILLION && n <= MILLION);
const everyNth: Rule = (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 1_000 ? undefined : `is ${describe(v)}; it must be a whole number from 1 (every write) to 1000`);
const flag: Rule = (v) => (typeof v === 'boolean' ? undefined : `is ${describe(v)}; it must be true or false`);
const text: Rule = (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : `is ${describe(v)}; it must be a non-empty string`);
const oneOf =
  (...allowed: readonly string[]): Rule =>
  (v) =>
    typeof v === 'string' && allowed.includes(v) ? undefined : `is ${describe(v)}; allowed: ${allowed.join(', ')}`;

/** A process of the variant, or a role resolved when the fault fires (scenarios/faults.ts). */
function target(roles: readonly string[], processRoles?: readonly string[]): Rule {
  const either = roles.length === 0 ? 'a process' : `a process or a role (${roles.join(', ')})`;
  return (v, { context }) => {
    if (typeof v !== 'string' || v === '') return `is ${describe(v)}; it must name ${either}`;
    if (v.startsWith('@') && !roles.some((r) => (r === '@member-N' ? /^@member-[1-9]\d*$/.test(v) : r === v))) return `is ${describe(v)}, not a role here; it must name ${either}`;
    if (v.startsWith('@')) return undefined;
    const known = context.processes?.filter((p) => processRoles === undefined || processRoles.includes(p.role)).map((p) => p.name);
    if (known === undefined || known.includes(v)) return undefined;
    const kind = processRoles === undefined ? 'a process' : `a process of role ${processRoles.join(' or ')}`;
    // A variant may have hundreds of processes (hot-key's waiters): the message names the first few.
    const shown = known.length > MAX_NAMES_SHOWN ? [...known.slice(0, MAX_NAMES_SHOWN), `... (${known.length - MAX_NAMES_SHOWN} more)`] : known;
    return `is ${describe(v)}, not ${kind} of ${context.variant ?? 'this variant'}; allowed: ${[...shown, ...roles].join(', ')}`;
  };
}

function targets(roles: readonly string[]): Rule {
  const one = target(roles);
  return (v, check) => {
    if (!Array.isArray(v) || v.length === 0) return `is ${describe(v)}; it must be a non-empty list of process names or roles, e.g. ["etcd-1", "@leader"]`;
    for (const [i, name] of v.entries()) {
      const why = one(name, check);
      if (why !== undefined) return `[${i}] ${why}`;
    }
    return undefined;
  };
}

/** A heal names a partition or slow link of the same schedule. */
const healedId: Rule = (v, { all }) => {
  const ids = all.filter((f) => f['kind'] === 'partition' || f['kind'] === 'slow-link').map((f) => f['id']);
  if (typeof v === 'string' && ids.includes(v)) return undefined;
  return `is ${describe(v)}; it must be the id of a partition or slow-link fault in this schedule${ids.length === 0 ? ' (there is none)' : `: ${ids.map(describe).join(', ')}`}`;
};

const snapshotBeforeRestore: Rule = (v, check) => {
  const atMs = check.fault['atMs'];
  return msFromStart(v, check) ?? (typeof atMs === 'number' && (v as number) > atMs ? `is ${describe(v)}; the snapshot is taken at or before the restore (atMs ${atMs})` : undefined);
};

/** A partition's or slow link's id names one fault: a heal must know which it ends. */
const ownId: Rule = (v, check) => {
  const why = text(v, check);
  if (why !== undefined) return why;
  const first = check.all.findIndex((f) => (f['kind'] === 'partition' || f['kind'] === 'slow-link') && f['id'] === v);
  return check.all[first] === check.fault ? undefined : `is ${describe(v)}, already the id of faults[${first}]; give each partition and slow link an id of its own`;
};

const req = (rule: Rule): Required => ({ rule });
const opt = (rule: Rule): Optional => ({ rule, optional: true });
const anyTarget = req(target(ROLES));

const FIELDS: { readonly [K in Fault['kind']]: FieldRules<FaultOf<Fault, K>> } = {
  pause: { atMs: req(msFromStart), target: anyTarget, forMs: opt(durationMs) },
  resume: { atMs: req(msFromStart), target: anyTarget },
  restart: { atMs: req(msFromStart), target: anyTarget },
  crash: { atMs: req(msFromStart), target: anyTarget, powerLoss: opt(flag) },
  partition: { atMs: req(msFromStart), id: req(ownId), from: req(targets(ROLES)), to: req(targets(ROLES)), oneWay: opt(flag) },
  heal: { atMs: req(msFromStart), id: req(healedId) },
  'stall-disk': { atMs: req(msFromStart), target: req(target(MEMBER_ROLES, ['member'])), durationMs: req(durationMs) },
  'clock-drift': { atMs: req(msFromStart), target: anyTarget, ppm: req(ppm) },
  'clock-step': { atMs: req(msFromStart), target: anyTarget, deltaMs: req(anyMs), clock: opt(oneOf('wall', 'monotonic')) },
  'slow-link': { atMs: req(msFromStart), id: req(ownId), from: req(targets(ROLES)), to: req(targets(ROLES)), extraDelayMs: req(extraMs), oneWay: opt(flag) },
  brownout: { atMs: req(msFromStart), target: anyTarget, extraDelayMs: req(extraMs), freezeAfterMs: req(extraMs), freezeForMs: req(extraMs), recoverMs: req(extraMs) },
  'lossy-watch': { atMs: req(msFromStart), target: req(target([], ['arbiter'])), forMs: req(durationMs) },
  'lose-answers': { atMs: req(msFromStart), target: req(target([], ['arbiter'])), forMs: req(durationMs), everyNth: req(everyNth), timeoutMs: req(extraMs) },
  'stuck-member': { atMs: req(msFromStart), target: req(target(MEMBER_ROLES, ['member'])), forMs: req(durationMs) },
  'advance-epoch': { atMs: req(msFromStart), via: req(target([], ['arbiter'])) },
  restore: { atMs: req(msFromStart), snapshotAtMs: req(snapshotBeforeRestore), clusterToken: req(text), arbiters: opt(oneOf('reconnect', 'restart')), ifEpochUnchanged: opt(flag) },
};

export const FAULT_KINDS = Object.keys(FIELDS) as readonly Fault['kind'][];

function isKind(kind: unknown): kind is Fault['kind'] {
  return typeof kind === 'string' && Object.hasOwn(FIELDS, kind);
}

/** Checks a parsed schedule; returns it typed, or throws a FaultScheduleError naming the first bad field. */
export function checkFaultSchedule(value: unknown, context: ScheduleContext = {}): Fault[] {
  if (!Array.isArray(value)) throw new FaultScheduleError('(schedule)', `is ${value === null ? 'null' : typeof value}; it must be a list of faults, e.g. ${EXAMPLE} ([] for none)`);
  if (value.length > MAX_FAULTS) throw new FaultScheduleError('(schedule)', `has ${value.length} faults; at most ${MAX_FAULTS}`);
  const all = value.filter((f): f is Record<string, unknown> => f !== null && typeof f === 'object' && !Array.isArray(f));
  value.forEach((fault: unknown, i) => {
    const at = `faults[${i}]`;
    if (fault === null || typeof fault !== 'object' || Array.isArray(fault)) throw new FaultScheduleError(at, `is ${describe(fault)}; each fault is an object such as ${EXAMPLE.slice(1, -1)}`);
    const f = fault as Record<string, unknown>;
    if (!isKind(f['kind'])) throw new FaultScheduleError(`${at}.kind`, `is ${describe(f['kind'])}; allowed: ${FAULT_KINDS.join(', ')}`);
    const rules = FIELDS[f['kind']] as Readonly<Record<string, Required | Optional>>;
    const fields = ['kind', ...Object.keys(rules)];
    for (const name of Object.keys(f)) {
      if (!fields.includes(name)) throw new FaultScheduleError(`${at}.${name}`, `is not a field of a ${f['kind']} fault; its fields: ${fields.join(', ')}`);
    }
    for (const [name, { rule, optional }] of Object.entries(rules)) {
      if (f[name] === undefined) {
        if (optional === true) continue;
        throw new FaultScheduleError(`${at}.${name}`, `is missing; a ${f['kind']} fault needs ${fields.filter((n) => n === 'kind' || rules[n]?.optional !== true).join(', ')}`);
      }
      const why = rule(f[name], { fault: f, all, context });
      if (why === undefined) continue;
      // A list's rule names the element: "[1] is ..." becomes the field faults[i].from[1].
      const element = /^(\[\d+\]) ([\s\S]*)$/.exec(why);
      throw element === null ? new FaultScheduleError(`${at}.${name}`, why) : new FaultScheduleError(`${at}.${name}${element[1]}`, element[2] ?? '');
    }
  });
  return value as Fault[];
}

/** Parses and checks a schedule's text (the web editor's, a `--faults` file's). */
export function parseFaultSchedule(text: string, context: ScheduleContext = {}): Fault[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FaultScheduleError('(schedule)', `is not JSON (${(error as Error).message}); write a list such as ${EXAMPLE}`);
  }
  return checkFaultSchedule(value, context);
}

/** The editor's text for a schedule: one fault a line, so a schedule reads and edits like a table. */
export function formatFaultSchedule(faults: readonly unknown[]): string {
  return faults.length === 0 ? '[]' : `[\n${faults.map((f) => `  ${JSON.stringify(f)}`).join(',\n')}\n]`;
}

/** Whether two schedules are the same data, fields in the same order (white space in the editor is not an edit). */
export function sameFaultSchedule(a: readonly unknown[], b: readonly unknown[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
