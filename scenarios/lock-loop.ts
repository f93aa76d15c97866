// A worker under steady load: it picks a key (from its own seeded stream), holds it for a few units of
// work through runHolder (beliefs recorded, writes to a guarded resource), releases, rests, and goes
// again until its stop time. An acquire the service refuses (sealed, draining, unavailable...) is
// recorded with its error code and retried after a pause, as a real caller would.
import type { BeliefInterval } from '../core/checkers/index.js';
import type { ClientNode, World } from '../sim/world/world.js';
import { type HolderPlan, runHolder } from './holder.js';
import { allOf, type SettleOptions, settleWithinHorizon } from './horizon.js';

export interface Attempt {
  readonly worker: string;
  readonly key: string;
  /** The client (and so the arbiter, or shard) the acquire went to. */
  readonly via: string;
  /** True time the acquire was sent. */
  readonly atMs: number;
  /** 'granted', or the refusal's error code. */
  readonly outcome: string;
  readonly token?: bigint;
  /** True time the grant came back (granted attempts). */
  readonly grantedAtMs?: number;
  readonly fenced: boolean;
}

export interface LoopOptions {
  readonly worker: string;
  readonly keys: readonly string[];
  /** The client to acquire `key` through, asked at each attempt (a shard move changes it). */
  readonly clientFor: (key: string) => ClientNode;
  readonly plan: Omit<HolderPlan, 'key'>;
  /** No new attempt starts at or after this true time. */
  readonly stopAtMs: number;
  readonly restMs: number;
  /** Pause after a refused acquire. */
  readonly retryMs: number;
  readonly beliefs: BeliefInterval[];
  readonly attempts: Attempt[];
}

/** Bounds a worker's attempts (TigerStyle: every loop has a maximum). */
const MAX_ATTEMPTS = 10_000;

export async function runLockLoop(options: LoopOptions): Promise<void> {
  const first = options.clientFor(options.keys[0] ?? '');
  const kernel = first.process.kernel;
  const keys = kernel.rng.stream(`lock-loop/${options.worker}`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS && kernel.now() < options.stopAtMs; attempt += 1) {
    const key = keys.pick(options.keys);
    const node = options.clientFor(key);
    const atMs = kernel.now();
    const result = await runHolder(node, { ...options.plan, key }, options.beliefs);
    const granted = result.error === undefined;
    options.attempts.push({
      worker: options.worker,
      key,
      via: node.process.name,
      atMs,
      outcome: granted ? 'granted' : result.error,
      ...(result.token === undefined ? {} : { token: result.token }),
      ...(result.grantedAtMs === undefined ? {} : { grantedAtMs: result.grantedAtMs }),
      fenced: result.fenced,
    });
    await kernel.sleep(granted ? options.restMs : options.retryMs);
  }
}

/**
 * Runs the world on until every worker has finished (a call in flight may still need its RPC deadline);
 * the loops' results are the scenario's, so a run whose workers have not all finished by its horizon
 * ends there (horizon.ts).
 */
export async function settleLoops(world: World, loops: readonly Promise<void>[], options: Omit<SettleOptions, 'what'>): Promise<void> {
  let done = 0;
  for (const loop of loops) void loop.then(() => (done += 1), () => (done += 1));
  await settleWithinHorizon(world, allOf(loops), { ...options, what: () => `${loops.length - done} of ${loops.length} workers` });
}

/**
 * Writes the world's fenced resources refused: below the key's mark (a stale or regressed token: what
 * the fence is for) or equal to it (a holder's second unit with the same token, since ADR-16's reference
 * fence is `fence < $token`, strictly).
 */
export function fenceRejections(world: World): { readonly stale: number; readonly repeat: number } {
  let stale = 0;
  let repeat = 0;
  for (const resource of world.resources) {
    const marks = new Map<string, bigint>();
    for (const write of resource.writes) {
      const mark = marks.get(write.key);
      if (write.accepted) marks.set(write.key, write.token);
      else if (mark !== undefined && write.token === mark) repeat += 1;
      else stale += 1;
    }
  }
  return { stale, repeat };
}
