// The LockLog port over real etcd, through the etcd3 package's raw RPC clients (ARCHITECTURE.md, ports).
// Thin by design: each method is one etcd RPC; conversions live in convert.ts and kv-codec.ts, failure
// classification in error-mapping.ts, member choice in endpoint-set.ts.
import { HEDGE_AFTER_MS, KEEPALIVE_TIMEOUT_MS } from '../../core/ports/hedge.js';
import type { Etcd3 } from 'etcd3';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type {
  LeaseGrantResponse,
  LeaseKeepAliveResponse,
  LeaseTimeToLiveResponse,
  LockLog,
  RangeRequest,
  RangeResponse,
  ResponseHeader,
  StatusResponse,
  TxnRequest,
  TxnResponse,
  Watch,
  WatchHandlers,
  WatchRequest,
} from '../../core/ports/lock-log.js';
import { type LeaseId, type Revision, leaseId, memberId } from '../../core/units.js';
import { bytesToUtf8, countToWire, int64ToWire, parseInt64, parseSafeInteger, parseUint64, toHeader } from './convert.js';
import { type CallOptions, type CallSpec, EndpointSet, type HedgeSpec } from './endpoint-set.js';
import { decodeRange, decodeTxn, encodeRange, encodeTxn, isReadOnlyTxn } from './kv-codec.js';
import { keepAliveOnce } from './lease-keepalive.js';
import { openWatch } from './watch-stream.js';
import type { EtcdClientTls } from './etcd-tls.js';

/** etcd's ReqTimeout (5 s + 2 x 1 s election timeout, etcd-behaviour.md 0) plus a margin, so etcd's own
 * "request timed out" answer, which says more, normally arrives before our deadline fires. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 7_000 + 1_000;

/** The hedge's defaults: the rule and its reasons are core/ports/hedge.ts, shared with the simulator. */
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = KEEPALIVE_TIMEOUT_MS;
export const DEFAULT_HEDGE_AFTER_MS = HEDGE_AFTER_MS;

export interface EtcdLockLogOptions {
  /** Client URLs of the cluster's members, e.g. ['http://127.0.0.1:2379']. Calls start at the first. */
  readonly endpoints: string[];
  /** Deadline of each request (and of a watch's creation). Default DEFAULT_REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs?: number;
  /** Deadline of a keepalive over every member. Default DEFAULT_KEEPALIVE_TIMEOUT_MS, at most requestTimeoutMs. */
  readonly keepAliveTimeoutMs?: number;
  /** When a hedged call (a keepalive, a read) is also sent to the next member; Infinity: never. Default DEFAULT_HEDGE_AFTER_MS. */
  readonly hedgeAfterMs?: number;
  /** TLS to a TLS-only etcd (src/etcd/etcd-tls.ts); default plaintext. */
  readonly tls?: EtcdClientTls;
}

export function createEtcdLockLog(options: EtcdLockLogOptions): LockLog {
  const timeoutMs = positiveMs(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeoutMs');
  const keepAlive: HedgeSpec = {
    timeoutMs: positiveMs(options.keepAliveTimeoutMs ?? Math.min(DEFAULT_KEEPALIVE_TIMEOUT_MS, timeoutMs), 'keepAliveTimeoutMs'),
    hedgeAfterMs: positiveMs(options.hedgeAfterMs ?? DEFAULT_HEDGE_AFTER_MS, 'hedgeAfterMs'),
  };
  return new EtcdLockLog(new EndpointSet(options.endpoints, timeoutMs, options.tls), keepAlive);
}

/** A request's own deadline (TxnRequest.timeoutMs), as a CallSpec field. */
function timeoutOf(request: { readonly timeoutMs?: number }): { timeoutMs?: number } {
  return request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs };
}

function positiveMs(value: number, name: string): number {
  // Infinity is allowed: a hedge that never comes (the tests' control for L6).
  if (Number.isNaN(value) || value <= 0) throw new Error(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

class EtcdLockLog implements LockLog {
  private closed = false;
  private readonly watches = new Set<Watch>();

  constructor(
    private readonly endpoints: EndpointSet,
    private readonly keepAlive: HedgeSpec,
  ) {}

  txn(request: TxnRequest): Promise<TxnResponse> {
    const spec = { operation: 'txn', mutates: !isReadOnlyTxn(request), ...timeoutOf(request) };
    const run = async (client: Etcd3, options: CallOptions) => decodeTxn(await client.kv.txn(encodeTxn(request), options), request);
    return spec.mutates ? this.call(spec, run) : this.read(spec, run);
  }

  range(request: RangeRequest): Promise<RangeResponse> {
    return this.read({ operation: 'range', mutates: false, ...timeoutOf(request) }, async (client, options) => decodeRange(await client.kv.range(encodeRange(request), options)));
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.call({ operation: 'lease grant', mutates: true }, async (client, options) => {
      const response = await client.leaseClient.leaseGrant({ TTL: countToWire(ttlSeconds, 'lease TTL'), ID: '0' }, options);
      if (response.error !== undefined && response.error !== '') throw new LockLogError('internal', `lease grant: etcd answered "${response.error}"`);
      return { header: toHeader(response.header), id: leaseId(parseInt64(response.ID, 'lease ID')), ttlSeconds: parseSafeInteger(response.TTL, 'lease TTL') };
    });
  }

  /** Hedged over the members (EndpointSet.runHedged): one stuck member must not cost a false fence (L6). */
  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    if (this.closed) return Promise.reject(new LockLogError('cancelled', `keepalive of lease ${id}: this LockLog is closed`));
    return this.endpoints.runHedged({ operation: `keepalive of lease ${id}`, mutates: true }, async (client, options) => {
      const response = await keepAliveOnce(client, id, options);
      const answeredId = parseInt64(response.ID, 'lease ID');
      if (answeredId !== id) throw new LockLogError('internal', `keepalive of lease ${id}: etcd answered for lease ${answeredId}`);
      // etcd answers TTL 0 when the lease is gone (v3rpc/lease.go), never an error.
      return { header: toHeader(response.header), id, ttlSeconds: parseSafeInteger(response.TTL, 'lease TTL') };
    }, this.keepAlive);
  }

  leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }> {
    return this.call({ operation: `revoke of lease ${id}`, mutates: true }, async (client, options) => ({
      header: toHeader((await client.leaseClient.leaseRevoke({ ID: int64ToWire(id, 'lease id') }, options)).header),
    }));
  }

  leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    return this.read({ operation: `time-to-live of lease ${id}`, mutates: false }, async (client, callOptions) => {
      const response = await client.leaseClient.leaseTimeToLive({ ID: int64ToWire(id, 'lease id'), keys: options?.keys === true }, callOptions);
      return {
        header: toHeader(response.header),
        id,
        ttlSeconds: parseSafeInteger(response.TTL, 'lease TTL'),
        grantedTtlSeconds: parseSafeInteger(response.grantedTTL, 'granted TTL'),
        keys: (response.keys ?? []).map(bytesToUtf8),
      };
    });
  }

  async watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    const entry: { tracked?: Watch } = {};
    const untrack = () => {
      if (entry.tracked !== undefined) this.watches.delete(entry.tracked);
    };
    // A watch that ended on its own (compacted, stream broke) is forgotten at once, not at close().
    const ownHandlers: WatchHandlers = {
      onEvents: (batch) => handlers.onEvents(batch),
      onError: (error) => {
        untrack();
        handlers.onError(error);
      },
    };
    const opened = await this.call({ operation: `watch of ${request.key}${request.prefix === true ? '*' : ''}`, mutates: false }, (client, options, endpoint) =>
      openWatch(client, request, ownHandlers, { ...options, description: `watch of ${request.key} on ${endpoint}` }),
    );
    const tracked: Watch = {
      header: opened.header,
      cancel: async () => {
        untrack();
        await opened.cancel();
      },
    };
    entry.tracked = tracked;
    this.watches.add(tracked);
    if (this.closed) await tracked.cancel(); // close() ran while the watch was being created
    return tracked;
  }

  compact(revisionToKeep: Revision): Promise<{ readonly header: ResponseHeader }> {
    return this.call({ operation: `compact at ${revisionToKeep}`, mutates: true }, async (client, options) => ({
      header: toHeader((await client.kv.compact({ revision: int64ToWire(revisionToKeep, 'compact revision'), physical: false }, options)).header),
    }));
  }

  /** Maintenance.Status of the member this LockLog currently talks to. */
  status(): Promise<StatusResponse> {
    return this.call({ operation: 'status', mutates: false }, async (client, options) => {
      const response = await client.maintenance.status(options);
      return {
        header: toHeader(response.header),
        leader: memberId(parseUint64(response.leader, 'status leader')),
        raftIndex: parseUint64(response.raftIndex, 'status raftIndex'),
        raftTerm: parseUint64(response.raftTerm, 'status raftTerm'),
        version: response.version,
        dbSizeBytes: parseSafeInteger(response.dbSize, 'status dbSize'),
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.watches].map((watch) => watch.cancel()));
    this.endpoints.close();
  }

  private async call<T>(spec: CallSpec, run: (client: Etcd3, options: CallOptions, endpoint: string) => Promise<T>): Promise<T> {
    if (this.closed) throw new LockLogError('cancelled', `${spec.operation}: this LockLog is closed`);
    return this.endpoints.run(spec, run);
  }

  /** A read changes nothing: hedged over the members like a keepalive, within its own deadline (core/ports/hedge.ts, issue 35). */
  private async read<T>(spec: CallSpec, run: (client: Etcd3, options: CallOptions, endpoint: string) => Promise<T>): Promise<T> {
    if (this.closed) throw new LockLogError('cancelled', `${spec.operation}: this LockLog is closed`);
    return this.endpoints.runHedged(spec, run, { hedgeAfterMs: this.keepAlive.hedgeAfterMs, timeoutMs: this.endpoints.timeoutOf(spec.timeoutMs) });
  }
}
