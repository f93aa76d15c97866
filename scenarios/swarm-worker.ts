// The swarm's workers (swarm.ts): each client process runs one or more tasks that share its LockClient
// (and so its session, ADR-10/13), each task looping: pick a key, acquire, work in units that start only
// when canStart() says so (ADR-12), release, think. Every acquire-to-release is recorded as the task's
// Interest for the liveness checkers (core/checkers/run-history.ts), with the true time of each step.
import { CancelSource } from '../core/cancel.js';
import type { BeliefInterval, Interest } from '../core/checkers/index.js';
import type { LockHandle } from '../core/client/lock-client.js';
import { isLockError } from '../core/lock-error.js';
import type { Clock } from '../core/ports/clock.js';
import type { SimResource } from '../sim/world/resource.js';
import type { ClientNode } from '../sim/world/world.js';

const CANSTART_POLL_MS = 100;
const WRITE_TIMEOUT_MS = 2_000;
const RETRY_AFTER_REFUSAL_MS = 300;
/** TigerStyle: every loop has a maximum. */
const MAX_ROUNDS = 1_000;

/** The workload's knobs a worker reads (the swarm's SwarmParameters extends them). */
export interface WorkerParameters {
  readonly waitMs: number;
  /** Share of acquires that do not wait (waitMs 0): they race the queue heads. */
  readonly tryLockShare: number;
  readonly unitsMax: number;
  readonly prepareMs: number;
  readonly gapMs: number;
  readonly thinkMsMax: number;
  /** A careful holder asks canStart() again just before its write, not only before each unit (ADR-12). */
  readonly checkBeforeWrite: boolean;
}

export interface Counters {
  acquires: number;
  granted: number;
  readonly refused: Map<string, number>;
  writesAccepted: number;
  writesRejected: number;
  writesUnanswered: number;
  writesWithheld: number;
  fenced: number;
  advancesDone: number;
  advancesSkipped: number;
}

/** What the workers share with the operators: which tasks are inside an acquire-to-release, and whether arbiters drain. */
export class Floor {
  draining = false;
  /** Task ids (`client-1/task-2`) inside an acquire-to-release. */
  readonly busy = new Set<string>();
  /** Task ids that have their grant and have not released it yet. */
  readonly holding = new Set<string>();

  /** faults.ts `@holder`: a client one of whose tasks holds a lock. */
  clientHolds(client: string): boolean {
    return [...this.holding].some((task) => clientOfTask(task) === client);
  }

  /** The client processes with a task inside an acquire-to-release. */
  busyClients(): string[] {
    return [...new Set([...this.busy].map(clientOfTask))];
  }
}

export function taskName(client: string, task: number): string {
  return `${client}/task-${task + 1}`;
}

function clientOfTask(task: string): string {
  return task.slice(0, task.lastIndexOf('/'));
}

export interface WorkOptions {
  readonly parameters: WorkerParameters;
  readonly className: string;
  readonly ttlSeconds: number;
  readonly keys: readonly string[];
  readonly resource: SimResource;
  readonly stopAtMs: number;
  readonly beliefs: BeliefInterval[];
  readonly interests: Interest[];
  readonly counters: Counters;
  readonly floor: Floor;
}

type MutableInterest = { -readonly [P in keyof Interest]: Interest[P] };

/** One task's loop until the workload ends. Task 0 draws from the stream a one-task client always had. */
export async function work(node: ClientNode, task: number, options: WorkOptions): Promise<void> {
  const { parameters: p, counters, floor } = options;
  const kernel = node.process.kernel;
  const clock = node.process.clock();
  const name = taskName(node.process.name, task);
  const draw = kernel.rng.stream(task === 0 ? `swarm/worker/${node.process.name}` : `swarm/worker/${name}`);
  for (let round = 0; round < MAX_ROUNDS && kernel.now() < options.stopAtMs; round += 1) {
    const key = options.keys[draw.int(1, options.keys.length) - 1] as string;
    const waitMs = draw.chance(p.tryLockShare) ? 0 : p.waitMs;
    const units = draw.int(2, p.unitsMax);
    const thinkMs = draw.int(0, p.thinkMsMax);
    floor.busy.add(name);
    const outcome = await holdOnce(node, name, key, waitMs, units, options);
    floor.busy.delete(name);
    if (outcome !== 'granted') counters.refused.set(outcome, (counters.refused.get(outcome) ?? 0) + 1);
    await clock.sleep(outcome === 'granted' ? thinkMs : RETRY_AFTER_REFUSAL_MS);
  }
}

/** Acquire, then units of work, each started only when canStart() says so (ADR-12); returns 'granted' or the refusal's code. */
async function holdOnce(node: ClientNode, task: string, key: string, waitMs: number, units: number, options: WorkOptions): Promise<string> {
  const { parameters: p, counters } = options;
  const kernel = node.process.kernel;
  const clock = node.process.clock();
  counters.acquires += 1;
  const interest: MutableInterest = { holder: node.identity, task, key, waitMs, fromMs: kernel.now(), outcome: 'pending' };
  options.interests.push(interest);
  let fenced = false;
  let handle: LockHandle;
  try {
    handle = await node.client.acquire({ key, className: options.className, ttlSeconds: options.ttlSeconds, waitMs, onFence: () => (fenced = true) });
  } catch (error) {
    const code = isLockError(error) ? error.code : 'error';
    Object.assign(interest, { answeredMs: kernel.now(), outcome: code === 'indeterminate' ? 'in-doubt' : 'refused', code });
    return code;
  }
  Object.assign(interest, { answeredMs: kernel.now(), outcome: 'granted', token: handle.token });
  counters.granted += 1;
  options.floor.holding.add(task);
  for (let unit = 0; unit < units; unit += 1) {
    // Renewal trouble stops new work, not the hold: wait for it to clear, up to a TTL, unless fenced.
    for (let waitedMs = 0; !handle.canStart() && !handle.fenced && waitedMs < options.ttlSeconds * 1_000; waitedMs += CANSTART_POLL_MS) await clock.sleep(CANSTART_POLL_MS);
    if (!handle.canStart()) break;
    const nowMs = kernel.now();
    options.beliefs.push({ holder: node.identity, key, token: handle.token, fromMs: nowMs, toMs: nowMs });
    await clock.sleep(p.prepareMs);
    if (p.checkBeforeWrite) {
      if (!handle.canStart()) {
        counters.writesWithheld += 1;
        break;
      }
      const writeMs = kernel.now();
      options.beliefs.push({ holder: node.identity, key, token: handle.token, fromMs: writeMs, toMs: writeMs });
    }
    const accepted = await within(clock, WRITE_TIMEOUT_MS, node.resources.write(options.resource, key, handle.token));
    if (accepted === undefined) counters.writesUnanswered += 1;
    else if (accepted) counters.writesAccepted += 1;
    else counters.writesRejected += 1;
    await clock.sleep(p.gapMs);
  }
  if (fenced) counters.fenced += 1;
  options.floor.holding.delete(task);
  Object.assign(interest, { releasedMs: kernel.now(), release: 'pending' });
  const release = await handle.release().then(
    (deleted) => (deleted ? 'released' : 'not-released'),
    (error: unknown) => (isLockError(error, 'indeterminate') ? 'in-doubt' : 'failed'),
  );
  Object.assign(interest, { release, releaseAnsweredMs: kernel.now() });
  return 'granted';
}

/** `promise`'s value, or undefined if it has not settled within `ms` of this process's clock. */
async function within<T>(clock: Clock, ms: number, promise: Promise<T>): Promise<T | undefined> {
  const timer = new CancelSource();
  const timeout = clock.sleep(ms, timer.signal).then(
    () => undefined,
    () => undefined,
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    timer.cancel();
  }
}
