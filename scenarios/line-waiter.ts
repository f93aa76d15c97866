// A client in a line for a hot key (ADR-14): acquire with a wait; if the call breaks (the arbiter died:
// `unavailable` or `indeterminate`), re-join after a jittered reconnect backoff with what is left of
// the wait, on the same session; once granted, check canStart() (a belief point, ADR-12), write once
// with the token, hold briefly, release (retrying a release whose call broke) and close the session.
import type { BeliefInterval } from '../core/checkers/index.js';
import type { LockHandle } from '../core/client/lock-client.js';
import { isLockError } from '../core/lock-error.js';
import { randomInt } from '../core/ports/random.js';
import type { SimResource } from '../sim/world/resource.js';
import type { ClientNode } from '../sim/world/world.js';

export interface WaiterPlan {
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
  /** The whole wait, from arrival; re-joins get what is left of it. 0: do not wait. */
  readonly waitMs: number;
  readonly holdMs: number;
  readonly resource?: SimResource;
}

export interface LineWaiter {
  readonly identity: string;
  readonly arrivedAtMs: number;
  readonly grantedAtMs: number | undefined;
  /** Acquires made again after a broken call. */
  readonly rejoins: number;
  readonly error: string | undefined;
  readonly released: boolean;
}

/** TigerStyle: every retry loop has a named maximum. */
const MAX_REJOINS = 20;
const MAX_RELEASE_TRIES = 20;
/** gRPC-style reconnect backoff with jitter: the waiters of a dead arbiter do not come back in step. */
const REJOIN_BACKOFF_MIN_MS = 100;
const REJOIN_BACKOFF_MAX_MS = 600;

const broken = (error: unknown): boolean => isLockError(error, 'unavailable') || isLockError(error, 'indeterminate');

export async function runLineWaiter(node: ClientNode, plan: WaiterPlan, beliefs: BeliefInterval[]): Promise<LineWaiter> {
  const kernel = node.process.kernel;
  const clock = node.process.clock();
  const random = node.process.random('rejoin');
  const arrivedAtMs = kernel.now();
  const deadlineMs = clock.now() + plan.waitMs;
  let rejoins = 0;
  let handle: LockHandle | undefined;
  let error: string | undefined;
  while (handle === undefined && error === undefined) {
    const waitMs = plan.waitMs === 0 ? 0 : Math.max(1, deadlineMs - clock.now());
    try {
      handle = await node.client.acquire({ key: plan.key, className: plan.className, ttlSeconds: plan.ttlSeconds, waitMs, onFence: () => undefined });
    } catch (failure) {
      const backoffMs = randomInt(random, REJOIN_BACKOFF_MIN_MS, REJOIN_BACKOFF_MAX_MS);
      if (!broken(failure) || rejoins >= MAX_REJOINS || clock.now() + backoffMs >= deadlineMs) {
        error = isLockError(failure) ? failure.code : String(failure);
      } else {
        rejoins += 1;
        await clock.sleep(backoffMs);
      }
    }
  }
  if (handle === undefined) {
    await node.client.close();
    return { identity: node.identity, arrivedAtMs, grantedAtMs: undefined, rejoins, error, released: false };
  }
  const grantedAtMs = kernel.now();
  if (handle.canStart()) {
    beliefs.push({ holder: node.identity, key: plan.key, token: handle.token, fromMs: grantedAtMs, toMs: grantedAtMs });
    if (plan.resource !== undefined) await node.resources.write(plan.resource, plan.key, handle.token);
  }
  await clock.sleep(Math.max(0, plan.holdMs - (kernel.now() - grantedAtMs)));
  const released = await release(node, handle, random);
  await node.client.close();
  return { identity: node.identity, arrivedAtMs, grantedAtMs, rejoins, error: undefined, released };
}

/** Releases; a release whose call broke is sent again (it is idempotent: the txn compares the hold). */
async function release(node: ClientNode, handle: LockHandle, random: ReturnType<ClientNode['process']['random']>): Promise<boolean> {
  const grant = handle.grant;
  let outcome = await handle.release().then(() => 'done' as const, (failure: unknown) => (broken(failure) ? 'broken' : 'done'));
  for (let tries = 0; outcome === 'broken' && tries < MAX_RELEASE_TRIES; tries += 1) {
    await node.process.clock().sleep(randomInt(random, REJOIN_BACKOFF_MIN_MS, REJOIN_BACKOFF_MAX_MS));
    outcome = await node.api
      .release({ sessionId: grant.sessionId, key: grant.key, token: grant.token })
      .then(() => 'done' as const, (failure: unknown) => (broken(failure) ? 'broken' : 'done'));
  }
  return outcome === 'done';
}
