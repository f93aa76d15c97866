// The LockLog an arbiter of the world speaks: the arbiter's etcd client, which after a snapshot restore
// reaches the restored members (same addresses in production; new process names in the simulator, so a
// new SimLockLog). Every call goes to the current log unchanged; calls and watches already open on the
// old one end as its members' connections reset, and the arbiter's retries land on the new one.
import type {
  LeaseGrantResponse, LeaseKeepAliveResponse, LeaseTimeToLiveResponse, LockLog, RangeRequest, RangeResponse, ResponseHeader,
  StatusResponse, TxnRequest, TxnResponse, Watch, WatchHandlers, WatchRequest,
} from '../../core/ports/lock-log.js';
import type { LeaseId, Revision } from '../../core/units.js';

export class ReconnectingLog implements LockLog {
  private generation = 0;

  constructor(private current: LockLog) {}

  /** From now on every call goes to `log`: a new connection (LockLog.connectionGeneration). */
  use(log: LockLog): void {
    this.current = log;
    this.generation += 1;
  }

  connectionGeneration(): number {
    return this.generation;
  }

  txn(request: TxnRequest): Promise<TxnResponse> {
    return this.current.txn(request);
  }

  range(request: RangeRequest): Promise<RangeResponse> {
    return this.current.range(request);
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.current.leaseGrant(ttlSeconds);
  }

  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    return this.current.leaseKeepAlive(id);
  }

  leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }> {
    return this.current.leaseRevoke(id);
  }

  leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    return this.current.leaseTimeToLive(id, options);
  }

  watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    return this.current.watch(request, handlers);
  }

  compact(revision: Revision): Promise<{ readonly header: ResponseHeader }> {
    return this.current.compact(revision);
  }

  status(): Promise<StatusResponse> {
    return this.current.status();
  }

  close(): Promise<void> {
    return this.current.close();
  }
}
