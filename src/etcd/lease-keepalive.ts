// One lease keepalive = one LeaseKeepAlive stream carrying one request and one response.
//
// Why not one long-lived stream shared by every lease, as clientv3 does: etcd serves a keepalive stream
// strictly one request at a time (v3rpc/lease.go: Recv, LeaseRenew, Send), and LeaseRenew can block for
// seconds: on a follower it forwards to the leader for up to ReqTimeout (7 s), and on the leader a renew of
// an expired lease waits until the revoke is applied (etcd-behaviour.md 1.3, 2.1). On a shared stream
// that one slow lease would hold up the renewals of every other session. Answers on a shared stream
// also carry only the lease id, so after a timed-out request a late answer could be credited to a later
// request for the same lease, whose send time is later: that would push the holder's fence deadline
// (ADR-12: send time of the last successful keepalive + TTL - 1 s) past the real expiry. A stream per
// call has neither problem, costs no extra round trip (HTTP/2 opens a stream with its first frame on the
// existing connection), and half-closing it after the request ends it cleanly on the server.
import type { Etcd3, ILeaseKeepAliveResponse } from 'etcd3';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { LeaseId } from '../../core/units.js';
import { int64ToWire } from './convert.js';
import type { CallOptions } from './endpoint-set.js';

export async function keepAliveOnce(client: Etcd3, id: LeaseId, options: CallOptions): Promise<ILeaseKeepAliveResponse> {
  const wireId = int64ToWire(id, 'lease id');
  const stream = await client.leaseClient.leaseKeepAlive({ deadline: options.deadline });
  return new Promise((resolve, reject) => {
    let settled = false;
    let stopListening: () => void = () => undefined;
    const onAbort = () => {
      // Another member answered this keepalive first (EndpointSet.runHedged): end the stream here.
      stream.cancel();
      settle(() => reject(new LockLogError('cancelled', `keepalive of lease ${wireId}: answered by another member`)));
    };
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      stopListening();
      finish();
    };
    if (options.signal?.aborted === true) return onAbort();
    if (options.signal !== undefined) stopListening = options.signal.onAbort(onAbort);
    stream.on('data', (response: ILeaseKeepAliveResponse) => settle(() => resolve(response)));
    stream.on('error', (error: Error) => settle(() => reject(error)));
    stream.on('end', () =>
      settle(() => reject(new LockLogError('unavailable', `keepalive of lease ${wireId}: the stream ended without an answer`, { outcome: 'indeterminate' }))),
    );
    stream.write({ ID: wireId });
    stream.end();
  });
}
