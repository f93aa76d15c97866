// The real client's routing in the simulator (issue 32): src/client/network-arbiter.ts sends each call about
// a key (or a session's keepalive) to the arbiters in rendezvous order (ADR-14/18) and moves on to the next
// when one answers `unavailable` (a refused connect, nothing sent; or a draining arbiter that wrote nothing),
// never after a call that may have had an effect. The simulated world's multi-replica client drew a replica
// per call instead (sim/rpc/replica-router.ts), so with one arbiter down half its calls were refused where
// the real client's went to the other: a prediction of the gate must route as the gate's clients do.
import { isLockError } from '../core/lock-error.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import { rendezvousOrder } from '../core/shards/rendezvous.js';

/** A client's route (world ClientOptions.route) and the API over it that picks each call's arbiter. */
export interface FailoverRouting<P> {
  /** The replica of the call being sent now: read by the transport as it sends. */
  readonly route: () => P;
  /** Wraps the transport (world ClientOptions.wrapApi) with the rendezvous order and the failover. */
  readonly wrap: (api: ArbiterApi) => ArbiterApi;
}

/** Routing over `replicas` (named by `nameOf`, the names the order is hashed with). */
export function rendezvousFailover<P>(replicas: readonly P[], nameOf: (replica: P) => string): FailoverRouting<P> {
  if (replicas.length === 0) throw new Error('rendezvousFailover needs at least one replica');
  let current = replicas[0] as P;
  const inOrder = async <T>(unit: string | undefined, send: () => Promise<T>): Promise<T> => {
    const order = unit === undefined ? replicas : rendezvousOrder(replicas, nameOf, unit);
    let last: unknown;
    for (const replica of order) {
      current = replica; // read synchronously by the transport's send, before this call's first await
      try {
        return await send();
      } catch (error) {
        if (!isLockError(error, 'unavailable')) throw error;
        last = error;
      }
    }
    throw last;
  };
  const wrap = (api: ArbiterApi): ArbiterApi => ({
    openSession: (r) => inOrder(undefined, () => api.openSession(r)),
    keepAlive: (r) => inOrder(r.sessionId.toString(), () => api.keepAlive(r)),
    closeSession: (r) => inOrder(r.sessionId.toString(), () => api.closeSession(r)),
    acquire: (r) => inOrder(r.key, () => api.acquire(r)),
    release: (r) => inOrder(r.key, () => api.release(r)),
    validate: (r) => inOrder(r.key, () => api.validate(r)),
    inspect: (key) => inOrder(key, () => api.inspect(key)),
    describeKey: (r) => inOrder(r.key, () => api.describeKey(r)),
    requestForceRelease: (r) => inOrder(r.key, () => api.requestForceRelease(r)),
    approveForceRelease: (r) => inOrder(undefined, () => api.approveForceRelease(r)),
    requestEpochAdvance: (r) => inOrder('/sys/epoch', () => api.requestEpochAdvance(r)),
    approveEpochAdvance: (r) => inOrder(undefined, () => api.approveEpochAdvance(r)),
    status: () => inOrder(undefined, () => api.status()),
  });
  return { route: () => current, wrap };
}
