// A LockLog that forwards every call to another one and records which methods were called: the base
// of the fault-injecting wrappers in the arbiter tests (a log switched to another cluster, a watch that
// never delivers, a count of calls that must stay zero). Subclasses override one method to inject.
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
import type { LeaseId, Revision } from '../../core/units.js';

export class DelegatingLockLog implements LockLog {
  /** Method names in call order. */
  readonly calls: Array<keyof LockLog> = [];

  /** Where calls go; assign to switch every later call to another log. */
  constructor(public target: LockLog) {}

  protected next(method: keyof LockLog): LockLog {
    this.calls.push(method);
    return this.target;
  }

  txn(request: TxnRequest): Promise<TxnResponse> {
    return this.next('txn').txn(request);
  }

  range(request: RangeRequest): Promise<RangeResponse> {
    return this.next('range').range(request);
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.next('leaseGrant').leaseGrant(ttlSeconds);
  }

  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    return this.next('leaseKeepAlive').leaseKeepAlive(id);
  }

  leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }> {
    return this.next('leaseRevoke').leaseRevoke(id);
  }

  leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    return this.next('leaseTimeToLive').leaseTimeToLive(id, options);
  }

  watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    return this.next('watch').watch(request, handlers);
  }

  compact(revision: Revision): Promise<{ readonly header: ResponseHeader }> {
    return this.next('compact').compact(revision);
  }

  status(): Promise<StatusResponse> {
    return this.next('status').status();
  }

  /** Closes nothing: the target belongs to whoever opened it. */
  async close(): Promise<void> {}
}
