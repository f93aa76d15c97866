// A LockLog that follows one of the world's clusters through snapshot restores: each call goes to a
// SimLockLog of the cluster as it is now, made anew when a restore replaced it (the restored members have
// new process names in the simulator; in production they keep their addresses, and the same etcd client
// simply reconnects). Calls and watches already open on the old log end as its members' connections reset.
import type {
  LeaseGrantResponse, LeaseKeepAliveResponse, LeaseTimeToLiveResponse, LockLog, RangeRequest, RangeResponse, ResponseHeader,
  StatusResponse, TxnRequest, TxnResponse, Watch, WatchHandlers, WatchRequest,
} from '../../core/ports/lock-log.js';
import type { LeaseId, Revision } from '../../core/units.js';
import type { SimCluster } from '../cluster/cluster.js';

export class FollowingLog implements LockLog {
  private following: { readonly cluster: SimCluster; readonly log: LockLog } | undefined;

  constructor(
    private readonly current: () => SimCluster,
    private readonly connect: (cluster: SimCluster) => LockLog,
  ) {}

  private get log(): LockLog {
    const cluster = this.current();
    if (this.following?.cluster !== cluster) {
      if (this.following !== undefined) void this.following.log.close();
      this.following = { cluster, log: this.connect(cluster) };
    }
    return this.following.log;
  }

  txn(request: TxnRequest): Promise<TxnResponse> {
    return this.log.txn(request);
  }

  range(request: RangeRequest): Promise<RangeResponse> {
    return this.log.range(request);
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.log.leaseGrant(ttlSeconds);
  }

  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    return this.log.leaseKeepAlive(id);
  }

  leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }> {
    return this.log.leaseRevoke(id);
  }

  leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    return this.log.leaseTimeToLive(id, options);
  }

  watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    return this.log.watch(request, handlers);
  }

  compact(revision: Revision): Promise<{ readonly header: ResponseHeader }> {
    return this.log.compact(revision);
  }

  status(): Promise<StatusResponse> {
    return this.log.status();
  }

  close(): Promise<void> {
    return this.following === undefined ? Promise.resolve() : this.following.log.close();
  }
}
