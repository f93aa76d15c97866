// Legal lock histories, made up from a seed, for the checker's own property tests and its benchmark.
// Per key, a sequential run of the lock model (fenced resource) is generated first, each operation at
// a distinct point of time; then each process's operations get invoke and completion times around
// their points that never overlap the process's neighbours. Every history made here is linearizable
// by construction, and `holds` says where a second grant would certainly break it.
import type { HistoryEvent } from './history.js';
import { LOG_PROCESS } from './history.js';

export interface SyntheticLockHistoryOptions {
  readonly keys: number;
  readonly eventsPerKey: number;
  readonly processesPerKey: number;
  readonly seed: number;
  /** Chance that an operation's outcome is unknown (`info`); default 0.05. */
  readonly unknownRate?: number;
  /** Chance, while a key is held, that the log expires the hold next; default 0.08. */
  readonly expiryRate?: number;
}

/** A hold of the history: the key is certainly held by `token` from `acquireReturnedAt` to `endInvokedAt`. */
export interface SyntheticHold {
  readonly key: string;
  readonly token: bigint;
  readonly process: string;
  readonly acquireReturnedAt: number;
  /** The invoke of the first release that may have ended it, or the log's expiry; undefined if still held at the end. */
  readonly endInvokedAt: number | undefined;
}

export interface SyntheticLockHistory {
  /** In time order, as a recorder writes them. */
  readonly events: HistoryEvent[];
  readonly holds: SyntheticHold[];
}

type Outcome = 'ok' | 'fail' | 'info' | 'pending';
type Step = { process: string; f: string; outcome: Outcome; input: unknown; output: unknown; point: number; callTime: number; returnTime: number };
type Hold = { token: bigint; process: string; acquire: Step; /** The first operation that may have ended it. */ end: Step | undefined };
type KeyRun = { steps: Step[]; holds: Hold[] };

/** Tokens of epoch 1 (ADR-02), distinct across keys and increasing with time. */
const EPOCH_BASE = 1n << 48n;

export function syntheticLockHistory(options: SyntheticLockHistoryOptions): SyntheticLockHistory {
  const stamped: { event: HistoryEvent; seq: number }[] = [];
  const holds: SyntheticHold[] = [];
  for (let k = 0; k < options.keys; k += 1) {
    const key = `k${k}`;
    const random = mulberry32((options.seed ^ Math.imul(k + 1, 0x9e3779b9)) >>> 0);
    const run = runKey(key, k, options, random);
    assignTimes(run.steps, random);
    for (const step of run.steps) for (const event of eventsOf(key, step)) stamped.push({ event, seq: stamped.length });
    for (const hold of run.holds) {
      holds.push({ key, token: hold.token, process: hold.process, acquireReturnedAt: hold.acquire.returnTime, endInvokedAt: hold.end?.callTime });
    }
  }
  stamped.sort((a, b) => a.event.time - b.event.time || a.seq - b.seq);
  return { events: stamped.map((s) => s.event), holds };
}

type Process = { name: string; current: Hold | undefined; stale: bigint | undefined };

/** One key's sequential run of the lock model, as it is generated: what the log and the fenced resource know. */
class KeyRunState {
  readonly steps: Step[] = [];
  readonly holds: Hold[] = [];
  holder: Hold | 'unknown' | undefined;
  unknownToken = 0n;
  /** The fenced resource's highest accepted token. */
  mark = -1n;
  point = 0;
  events = 0;

  add(process: string, f: string, outcome: Outcome, input: unknown, output: unknown): Step {
    const step: Step = { process, f, outcome, input, output, point: this.point, callTime: this.point, returnTime: this.point };
    this.steps.push(step);
    this.events += process === LOG_PROCESS || outcome === 'pending' ? 1 : 2;
    return step;
  }
}

function runKey(key: string, keyIndex: number, options: SyntheticLockHistoryOptions, random: () => number): KeyRun {
  const unknownRate = options.unknownRate ?? 0.05;
  const expiryRate = options.expiryRate ?? 0.08;
  const processes: Process[] = Array.from({ length: options.processesPerKey }, (_, i) => ({ name: `${key}-p${i}`, current: undefined, stale: undefined }));
  const run = new KeyRunState();
  while (run.events < options.eventsPerKey) {
    run.point += 2 + Math.floor(random() * 8);
    const lastEvent = options.eventsPerKey - run.events === 1;
    const holder = run.holder;
    if (holder !== undefined && (lastEvent || random() < (holder === 'unknown' ? 0.3 : expiryRate))) {
      expire(run, holder, processes);
      continue;
    }
    const p = processes[Math.floor(random() * processes.length)] as Process;
    const unknown = random() < unknownRate;
    if (lastEvent) {
      run.add(p.name, 'acquire', 'pending', null, null);
      continue;
    }
    const r = random();
    if (p.current !== undefined) actAsHolder(run, p, p.current, r, unknown, random);
    else if (p.stale !== undefined && r < 0.35) actOnStaleToken(run, p, p.stale, random);
    else if (run.holder !== undefined) run.add(p.name, 'acquire', unknown ? 'info' : 'fail', null, unknown ? null : { error: 'contended' });
    else acquireFree(run, p, EPOCH_BASE + BigInt(run.point * options.keys + keyIndex + 1), unknown, random);
  }
  return { steps: run.steps, holds: run.holds };
}

/** The log expires the hold: its holder's token becomes stale. */
function expire(run: KeyRunState, holder: Hold | 'unknown', processes: readonly Process[]): void {
  const token = holder === 'unknown' ? run.unknownToken : holder.token;
  const expiry = run.add(LOG_PROCESS, 'expire', 'ok', { token: String(token) }, { token: String(token) });
  if (holder !== 'unknown') {
    holder.end ??= expiry;
    const owner = processes.find((p) => p.current === holder);
    if (owner !== undefined) [owner.current, owner.stale] = [undefined, token];
  }
  run.holder = undefined;
}

/** The holder writes, re-enters, or releases. */
function actAsHolder(run: KeyRunState, p: Process, current: Hold, r: number, unknown: boolean, random: () => number): void {
  const token = current.token;
  if (r < 0.45) {
    const takesEffect = !unknown || random() < 0.5;
    if (takesEffect) run.mark = token;
    run.add(p.name, 'write', unknown ? 'info' : 'ok', { token: String(token) }, null);
  } else if (r < 0.55) {
    run.add(p.name, 'acquire', 'ok', null, { token: String(token), reentered: true });
  } else {
    const release = run.add(p.name, 'release', unknown ? 'info' : 'ok', { token: String(token) }, unknown ? null : { released: true });
    // An unknown release may have ended the hold even when this run says it did not.
    current.end = release;
    if (!unknown || random() < 0.5) run.holder = undefined;
    [p.current, p.stale] = [undefined, undefined];
  }
}

/** A former holder writes with its stale token (the resource fences it unless no newer token wrote) or releases it. */
function actOnStaleToken(run: KeyRunState, p: Process, token: bigint, random: () => number): void {
  if (random() < 0.5) {
    const accepted = token >= run.mark;
    if (accepted) run.mark = token;
    run.add(p.name, 'write', accepted ? 'ok' : 'fail', { token: String(token) }, accepted ? null : { error: 'fenced' });
  } else {
    run.add(p.name, 'release', 'ok', { token: String(token) }, { released: false });
    p.stale = undefined;
  }
}

/** An acquire of the free key: granted, or unknown (and then granted or not, unseen). */
function acquireFree(run: KeyRunState, p: Process, token: bigint, unknown: boolean, random: () => number): void {
  if (unknown) {
    run.add(p.name, 'acquire', 'info', null, null);
    if (random() < 0.7) [run.holder, run.unknownToken] = ['unknown', token];
  } else {
    const hold: Hold = { token, process: p.name, acquire: run.add(p.name, 'acquire', 'ok', null, { token: String(token) }), end: undefined };
    run.holds.push(hold);
    [run.holder, p.current, p.stale] = [hold, hold, undefined];
  }
}

// Between two operations of one process at points a < b, the first returns before (a + b) / 2 and the
// second is invoked after it, so a process never has two operations open.
function assignTimes(steps: readonly Step[], random: () => number): void {
  const byProcess = new Map<string, Step[]>();
  for (const step of steps) {
    if (step.process === LOG_PROCESS) continue;
    const list = byProcess.get(step.process);
    if (list === undefined) byProcess.set(step.process, [step]);
    else list.push(step);
  }
  for (const list of byProcess.values()) {
    list.forEach((step, i) => {
      const previous = list[i - 1];
      const next = list[i + 1];
      step.callTime = previous === undefined ? step.point - Math.floor(random() * 3) : step.point - Math.floor((random() * (step.point - previous.point)) / 2);
      step.returnTime = next === undefined ? step.point + Math.floor(random() * 3) : step.point + Math.floor((random() * (next.point - step.point)) / 2);
    });
  }
}

function eventsOf(key: string, step: Step): HistoryEvent[] {
  const base = { process: step.process, f: step.f, key };
  if (step.process === LOG_PROCESS) return [{ ...base, type: 'ok', value: step.output, time: step.point }];
  const invoke: HistoryEvent = { ...base, type: 'invoke', value: step.input, time: step.callTime };
  if (step.outcome === 'pending') return [invoke];
  return [invoke, { ...base, type: step.outcome, value: step.output, time: step.returnTime }];
}

/** A small seeded generator (mulberry32): the same seed gives the same history everywhere. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
