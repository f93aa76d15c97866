// The workload every lock scenario shares: a holder acquires a key, then works in units. Before each
// unit it asks canStart() (ADR-12), and when the library says yes, that moment is recorded as a belief
// (true time, which only the simulator knows) for the belief checker; the unit then prepares and writes
// to the guarded resource with its token (ADR-16).
import type { BeliefInterval } from '../core/checkers/index.js';
import type { LockHandle } from '../core/client/lock-client.js';
import { isLockError } from '../core/lock-error.js';
import type { SimResource } from '../sim/world/resource.js';
import type { ClientNode } from '../sim/world/world.js';

export interface HolderPlan {
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
  readonly waitMs: number;
  /** Units of work to do while the lock is held (fewer if canStart() says no). */
  readonly units: number;
  /** Work before each write (a pause here is the classic stale write). */
  readonly prepareMs: number;
  /** Time between units. */
  readonly gapMs: number;
  readonly resource?: SimResource;
  /** Release at the end (false: keep holding until the session ends). */
  readonly release?: boolean;
}

export interface HolderResult {
  readonly holder: string;
  readonly token: bigint | undefined;
  readonly unitsDone: number;
  readonly writesAccepted: number;
  readonly writesRejected: number;
  readonly fenced: boolean;
  readonly error: string | undefined;
  readonly grantedAtMs: number | undefined;
}

export async function runHolder(node: ClientNode, plan: HolderPlan, beliefs: BeliefInterval[]): Promise<HolderResult> {
  const kernel = node.process.kernel;
  const clock = node.process.clock();
  let fenced = false;
  let handle: LockHandle;
  try {
    handle = await node.client.acquire({ key: plan.key, className: plan.className, ttlSeconds: plan.ttlSeconds, waitMs: plan.waitMs, onFence: () => (fenced = true) });
  } catch (error) {
    return { holder: node.identity, token: undefined, unitsDone: 0, writesAccepted: 0, writesRejected: 0, fenced, error: isLockError(error) ? error.code : String(error), grantedAtMs: undefined };
  }
  const grantedAtMs = kernel.now();
  let unitsDone = 0;
  let writesAccepted = 0;
  let writesRejected = 0;
  for (let unit = 0; unit < plan.units; unit += 1) {
    if (!handle.canStart()) break;
    const nowMs = kernel.now();
    beliefs.push({ holder: node.identity, key: plan.key, token: handle.token, fromMs: nowMs, toMs: nowMs });
    await clock.sleep(plan.prepareMs);
    if (plan.resource !== undefined) {
      if (await node.resources.write(plan.resource, plan.key, handle.token)) writesAccepted += 1;
      else writesRejected += 1;
    }
    unitsDone += 1;
    await clock.sleep(plan.gapMs);
  }
  if (plan.release !== false) await handle.release().catch(() => false);
  return { holder: node.identity, token: handle.token, unitsDone, writesAccepted, writesRejected, fenced, error: undefined, grantedAtMs };
}
