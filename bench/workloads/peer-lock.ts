// The best-known alternative, measured in the same run: the etcd3 package's own Lock, used as its README
// shows. acquire() grants a fresh lease (and starts its keepalive stream), then a txn creates the key on
// it; release() revokes the lease. So one lock costs two writes plus a stream where a lockstep grant,
// whose session lease is reused (ADR-10), costs one.
import { Etcd3, type Lock } from 'etcd3';
import { normaliseEndpoint } from '../../src/etcd/member-client.js';
import { type Workload, since } from './workload.js';

const LOCK_TTL_SECONDS = 15;

export function peerLockWorkload(endpoint: string, runId: string): Workload {
  // One client for all workers, as an application would hold one; pinned to the same member as the
  // other workloads so that all of them pay the same hops.
  const client = new Etcd3({ hosts: [normaliseEndpoint(endpoint)] });
  return {
    name: 'peerLock',
    phases: ['acquire', 'release', 'cycle'],
    async operation(worker, iteration, record) {
      const key = `/bench/${runId}/peer/w${worker}-${iteration}`;
      const startMs = performance.now();
      const lock: Lock = await client.lock(key).ttl(LOCK_TTL_SECONDS).acquire();
      const acquiredMs = since(startMs);
      const releaseStartMs = performance.now();
      await lock.release();
      record(1, since(releaseStartMs));
      record(0, acquiredMs);
      record(2, since(startMs));
    },
    async close() {
      client.close();
    },
  };
}
