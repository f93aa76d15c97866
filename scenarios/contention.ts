// What the contention scenarios (hot-key, watch-loss; ADR-14/15) share:
// - LogTap: a LockLog wrapper on each arbiter incarnation (World's wrapArbiterLog) that counts what a
//   line of waiters costs in the log (grant attempts, waiter-key writes, line reads) and can make the
//   arbiter's watches lose their events or start below a compaction;
// - resetWhenArbiterDies: lock.v1 as gRPC shows a dead server: calls in flight fail with a reset and
//   calls to a dead process are refused, instead of waiting out the call's deadline (which for an
//   acquire is its whole wait plus the RPC timeout);
// - inversions: how far a grant order strays from an arrival order.
import { HOLDER_PREFIX, WAITER_PREFIX } from '../core/lock-key.js';
import { LockError } from '../core/lock-error.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import { ARBITER_METHOD_NAMES, MUTATING_ARBITER_METHODS } from '../core/ports/arbiter-methods.js';
import type { LockLog, RequestOp, TxnRequest, TxnResponse, Watch, WatchHandlers, WatchRequest } from '../core/ports/lock-log.js';
import type { SimProcess } from '../sim/process/process.js';

export interface LogTapCounts {
  /** Grant txns sent (every attempt, granted or not: ADR-15's "one release, one attempt"). */
  grantTxns: number;
  /** Grant txns that wrote a hold. */
  grantsWritten: number;
  /** Txns that deleted a hold (releases through this arbiter). */
  releaseTxns: number;
  /** Durable waiter keys put (joins and re-joins) and deleted (in a grant txn, or on leaving). */
  waiterKeyPuts: number;
  waiterKeyDeletes: number;
  /** Txns that only put or delete a waiter key: a consensus round of their own (ADR-14's price). */
  waiterOnlyTxns: number;
  /** Reads of a durable line (who is first?). */
  lineReads: number;
  watchesOpened: number;
  watchBatchesDelivered: number;
  /** Batches swallowed while the tap drops watch events. */
  watchBatchesDropped: number;
  /** Watches that ended with `compacted`. */
  watchesCompacted: number;
}

export interface LogTapOptions {
  /** While this says true, watch batches are swallowed: the stream stays open and says nothing. */
  readonly dropWatchEvents?: () => boolean;
  /** Runs before a watch is created (the create is that much later): a compaction can land first. */
  readonly beforeWatch?: (request: WatchRequest) => Promise<void>;
}

const touches = (ops: readonly RequestOp[], type: 'put' | 'delete', prefix: string): number => ops.filter((op) => op.type === type && op.key.startsWith(prefix)).length;

export class LogTap {
  readonly counts: LogTapCounts = {
    grantTxns: 0, grantsWritten: 0, releaseTxns: 0, waiterKeyPuts: 0, waiterKeyDeletes: 0, waiterOnlyTxns: 0,
    lineReads: 0, watchesOpened: 0, watchBatchesDelivered: 0, watchBatchesDropped: 0, watchesCompacted: 0,
  };

  constructor(private readonly options: LogTapOptions = {}) {}

  /** Give this to World's `wrapArbiterLog`: every arbiter incarnation is counted into the same tap. */
  readonly wrap = (log: LockLog): LockLog => {
    return {
      txn: async (request) => this.countTxn(request, await log.txn(request)),
      range: async (request) => {
        if (request.prefix === true && request.key.startsWith(WAITER_PREFIX)) this.counts.lineReads += 1;
        return log.range(request);
      },
      leaseGrant: (ttlSeconds) => log.leaseGrant(ttlSeconds),
      leaseKeepAlive: (id) => log.leaseKeepAlive(id),
      leaseRevoke: (id) => log.leaseRevoke(id),
      leaseTimeToLive: (id, options) => log.leaseTimeToLive(id, options),
      watch: (request, handlers) => this.watch(log, request, handlers),
      compact: (revision) => log.compact(revision),
      status: () => log.status(),
      close: () => log.close(),
    };
  };

  private countTxn(request: TxnRequest, response: TxnResponse): TxnResponse {
    const holderPuts = touches(request.success, 'put', HOLDER_PREFIX);
    if (holderPuts > 0) this.counts.grantTxns += 1;
    if (!response.succeeded) return response;
    const waiterWrites = touches(request.success, 'put', WAITER_PREFIX) + touches(request.success, 'delete', WAITER_PREFIX);
    if (holderPuts > 0) this.counts.grantsWritten += 1;
    if (touches(request.success, 'delete', HOLDER_PREFIX) > 0) this.counts.releaseTxns += 1;
    this.counts.waiterKeyPuts += touches(request.success, 'put', WAITER_PREFIX);
    this.counts.waiterKeyDeletes += touches(request.success, 'delete', WAITER_PREFIX);
    if (waiterWrites > 0 && waiterWrites === request.success.length) this.counts.waiterOnlyTxns += 1;
    return response;
  }

  private async watch(log: LockLog, request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    if (this.options.beforeWatch !== undefined) await this.options.beforeWatch(request);
    this.counts.watchesOpened += 1;
    return log.watch(request, {
      onEvents: (batch) => {
        if (this.options.dropWatchEvents?.() === true) {
          this.counts.watchBatchesDropped += 1;
          return;
        }
        this.counts.watchBatchesDelivered += 1;
        handlers.onEvents(batch);
      },
      onError: (error) => {
        if (error.code === 'compacted') this.counts.watchesCompacted += 1;
        handlers.onError(error);
      },
    });
  }
}

/** The reset crosses the same link as an answer would (World's default lock.v1 latency). */
const RESET_LATENCY_MS = 0.25;

/**
 * Wraps a client's lock.v1 so that the death of the arbiter's process shows as gRPC shows it: calls in
 * flight fail after one link latency (`indeterminate` for calls that may have taken effect, else
 * `unavailable`), and calls made while it is down are refused at once (`unavailable`). A late answer of
 * the underlying call is ignored. Use as World's `wrapApi` for clients of `server`.
 */
export function resetWhenArbiterDies(api: ArbiterApi, server: SimProcess, client: SimProcess): ArbiterApi {
  const inFlight = new Map<(error: LockError) => void, keyof ArbiterApi>();
  server.onCrash(() => {
    const failing = [...inFlight];
    inFlight.clear();
    if (client.state === 'crashed') return;
    client.setTimer(RESET_LATENCY_MS, () => {
      client.kernel.requestDrain(); // the callers continue at this event's time (kernel.ts, "the drain")
      for (const [fail, method] of failing) {
        fail(new LockError(MUTATING_ARBITER_METHODS.has(method) ? 'indeterminate' : 'unavailable', `${method}: the connection to ${server.name} was reset (its process died)${MUTATING_ARBITER_METHODS.has(method) ? '; it may or may not have happened' : ''}`));
      }
    });
  });
  const call = (method: keyof ArbiterApi, argument: unknown): Promise<unknown> => {
    if (server.state === 'crashed') return Promise.reject(new LockError('unavailable', `${method}: connection to ${server.name} refused (its process is down)`));
    return new Promise((resolve, reject) => {
      inFlight.set(reject, method);
      const target = api[method] as (argument: unknown) => Promise<unknown>;
      target.call(api, argument).then(
        (value) => {
          inFlight.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          inFlight.delete(reject);
          reject(error);
        },
      );
    });
  };
  return Object.fromEntries(ARBITER_METHOD_NAMES.map((method) => [method, (argument: unknown) => call(method, argument)])) as unknown as ArbiterApi;
}

/** Pairs (a, b) where a arrived before b but was granted after it; `order` lists arrival ranks in grant order. */
export function inversions(order: readonly number[]): number {
  let count = 0;
  for (let i = 0; i < order.length; i += 1) {
    for (let j = i + 1; j < order.length; j += 1) if ((order[i] ?? 0) > (order[j] ?? 0)) count += 1;
  }
  return count;
}
