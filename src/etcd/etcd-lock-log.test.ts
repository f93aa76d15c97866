// The etcd adapter against real etcd: the LockLog conformance suite on a 1-member and a 3-member cluster,
// then what only the adapter does (failover, error mapping and outcomes, watch breakage, close).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockLogError, isLockLogError } from '../../core/ports/lock-log-error.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { leaseId } from '../../core/units.js';
import { createRealClock } from '../clock/real-clock.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { describeLockLogConformance } from '../testing/lock-log-conformance.js';
import { createEtcdLockLog } from './etcd-lock-log.js';

const clock = createRealClock();

function realEtcdSuite(members: 1 | 3, adapterTests: (cluster: () => EtcdCluster) => void): void {
  describe(`real etcd, ${members} member${members === 1 ? '' : 's'}`, () => {
    let started: EtcdCluster | undefined;
    const cluster = () => {
      if (started === undefined) throw new Error('the etcd cluster did not start (see the beforeAll error above)');
      return started;
    };
    beforeAll(async () => {
      started = await startEtcdCluster({ members });
    });
    afterAll(async () => {
      await started?.stop();
    });

    describeLockLogConformance(`etcd ${members}`, async () => {
      const log = createEtcdLockLog({ endpoints: cluster().endpoints });
      const memberLogs = cluster().endpoints.map((endpoint) => createEtcdLockLog({ endpoints: [endpoint] }));
      return { log, clock, memberLogs, close: async () => void (await Promise.all([log, ...memberLogs].map((l) => l.close()))) };
    });
    describe('adapter', () => adapterTests(cluster));
  });
}

/** The rejection of `promise`, which must be a LockLogError (never a raw gRPC error). */
async function rejection(promise: Promise<unknown>): Promise<LockLogError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof LockLogError)) throw new Error(`expected a LockLogError, got ${String(error)}`, { cause: error });
  return error;
}

async function deadEndpoint(): Promise<string> {
  const [port] = await freePorts(1);
  return `http://127.0.0.1:${port}`;
}

async function withLog<T>(endpoints: string[], run: (log: LockLog) => Promise<T>, requestTimeoutMs?: number): Promise<T> {
  const log = createEtcdLockLog(requestTimeoutMs === undefined ? { endpoints } : { endpoints, requestTimeoutMs });
  try {
    return await run(log);
  } finally {
    await log.close();
  }
}

realEtcdSuite(1, (cluster) => {
  it('maps a dead endpoint to unavailable, failed even for a write (nothing was sent)', async () => {
    await withLog([await deadEndpoint()], async (log) => {
      for (const call of [log.range({ key: 'k' }), log.txn({ compare: [], success: [{ type: 'put', key: 'k', value: 'v' }], failure: [] }), log.leaseKeepAlive(leaseId(1n)), log.status()]) {
        const error = await rejection(call);
        expect([error.code, error.outcome]).toEqual(['unavailable', 'failed']);
      }
      const watchError = await rejection(log.watch({ key: 'k' }, { onEvents: () => {}, onError: () => {} }));
      expect(watchError.code).toBe('unavailable');
    });
  });

  it('fails over from a dead endpoint to a live one', async () => {
    await withLog([await deadEndpoint(), ...cluster().endpoints], async (log) => {
      expect((await log.status()).header.clusterId).not.toBe(0n);
      const watch = await log.watch({ key: 'failover' }, { onEvents: () => {}, onError: () => {} });
      await watch.cancel();
    });
  });

  it('keeps lease ids exact above 2^53 through grant, keepalive and time-to-live', async () => {
    await withLog(cluster().endpoints, async (log) => {
      const lease = await log.leaseGrant(5);
      expect(lease.id).toBeGreaterThan(0n);
      expect((await log.leaseKeepAlive(lease.id)).id).toBe(lease.id); // the adapter also checks the echo
      expect((await log.leaseTimeToLive(lease.id)).id).toBe(lease.id);
      await log.leaseRevoke(lease.id);
    });
  });

  it('reports a write whose deadline passed as timeout with an indeterminate outcome', async () => {
    const shortTimeoutMs = 400;
    await withLog(
      cluster().endpoints,
      async (log) => {
        await log.status(); // connect first, so the deadline measures etcd and not the dial
        expect(cluster().members[0]?.running).toBe(true); // pausing a dead member does nothing: another etcd would answer
        cluster().pauseMember(0);
        try {
          const write = await rejection(log.txn({ compare: [], success: [{ type: 'put', key: 'paused', value: 'v' }], failure: [] }));
          expect([write.code, write.outcome]).toEqual(['timeout', 'indeterminate']);
          const keepalive = await rejection(log.leaseKeepAlive(leaseId(1n)));
          expect([keepalive.code, keepalive.outcome]).toEqual(['timeout', 'indeterminate']);
          const read = await rejection(log.range({ key: 'paused' }));
          expect([read.code, read.outcome]).toEqual(['timeout', 'failed']);
          const watch = await rejection(log.watch({ key: 'paused' }, { onEvents: () => {}, onError: () => {} }));
          expect(watch.code).toBe('timeout');
        } finally {
          cluster().resumeMember(0);
        }
        await cluster().waitUntilHealthy();
      },
      shortTimeoutMs,
    );
  });

  it('rejects every call after close with cancelled', async () => {
    const log = createEtcdLockLog({ endpoints: cluster().endpoints });
    await log.close();
    expect((await rejection(log.range({ key: 'k' }))).code).toBe('cancelled');
    await log.close(); // twice is fine
  });
});

realEtcdSuite(3, (cluster) => {
  it('ends a watch with unavailable when its member dies, and not after cancel', async () => {
    const errors: LockLogError[] = [];
    const cancelledErrors: LockLogError[] = [];
    const victim = cluster().members.length - 1;
    await withLog([cluster().endpoints[victim] ?? ''], async (log) => {
      await log.watch({ key: 'member-death' }, { onEvents: () => {}, onError: (error) => errors.push(error) });
      const cancelled = await log.watch({ key: 'member-death' }, { onEvents: () => {}, onError: (error) => cancelledErrors.push(error) });
      await cancelled.cancel();
      await cluster().kill(victim);
      const start = clock.now();
      while (errors.length === 0 && clock.now() - start < 5_000) await clock.sleep(20);
    });
    expect(errors.map((e) => e.code)).toEqual(['unavailable']);
    expect(cancelledErrors).toEqual([]);
    await cluster().startMember(victim);
  });

  it('serves calls through the remaining members when the current one is down', async () => {
    await cluster().kill(0);
    // If member 0 led, a write proposed before the next election is lost and times out after etcd's 7 s
    // ReqTimeout ("possibly due to previous leader failure"): wait for the new leader first.
    await cluster().waitUntilHealthy();
    try {
      await withLog(cluster().endpoints, async (log) => {
        // The first call may find member 0 gone (unavailable, nothing sent) and move on at once.
        const response = await log.txn({ compare: [], success: [{ type: 'put', key: 'failover', value: 'v' }], failure: [] });
        expect(response.succeeded).toBe(true);
        expect(isLockLogError(await log.range({ key: 'failover' }).catch((e: unknown) => e))).toBe(false);
      });
    } finally {
      await cluster().startMember(0);
    }
  });
});
