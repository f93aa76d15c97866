// lockstep's grant path through the service (ADR-18): the same acquire + release as grant.ts, sent over
// lock.v1 (gRPC, HTTP/2) by the network client to a real `lockstep serve` process on the same etcd. The
// difference from grant.ts is the extra hop ADR-18 budgets at 1-3 ms. As in-process, one client serves
// every worker (one process, one identity, one HTTP/2 connection to its arbiter), each worker with its
// own session, reused. `tls` measures the path as deployed: mTLS, the caller its certificate's SPIFFE ID.
import type { Session } from '../../core/ports/arbiter-api.js';
import { NetworkArbiter } from '../../src/client/network-arbiter.js';
import { type BenchServiceOptions, type ServiceProcess, startBenchService } from '../service-process.js';
import { BENCH_CLASS, BENCH_NAMESPACE, workerIdentity } from './bench-world.js';
import { type Workload, type WorkloadName, since } from './workload.js';

export interface ServiceWorkload extends Workload {
  /** serve's pid, for its CPU per operation. */
  readonly servePid: number;
}

export async function serviceWorkload(endpoints: readonly string[], workers: number, runId: string, onRenewalError: (message: string) => void, options: BenchServiceOptions = {}): Promise<ServiceWorkload> {
  const identity = workerIdentity(0);
  const service: ServiceProcess = await startBenchService(endpoints, [identity], options);
  const client = new NetworkArbiter({ addresses: [service.address], ...(service.clientTls === undefined ? { identity } : { tls: service.clientTls }) });
  const sessions: Session[] = [];
  const renewal: { timer?: NodeJS.Timeout } = {};
  const close = async (): Promise<void> => {
    clearInterval(renewal.timer);
    await Promise.all(sessions.map((s) => client.closeSession({ sessionId: s.sessionId }).catch(() => undefined)));
    client.close();
    await service.stop();
  };
  // The sessions outlive a long run: renewed at TTL/3, each over its one keepalive stream, from the first
  // one opened (on a loaded machine, opening the rest can outlast the first one's TTL).
  const timer = setInterval(() => {
    void Promise.all(sessions.map((s) => client.keepAlive({ sessionId: s.sessionId }))).catch((error: unknown) => onRenewalError(`renewing the service sessions failed: ${error instanceof Error ? error.message : String(error)}`));
  }, (BENCH_CLASS.ttlSeconds * 1000) / 3);
  timer.unref();
  renewal.timer = timer;
  try {
    for (let i = 0; i < workers; i++) sessions.push(await client.openSession({ ttlSeconds: BENCH_CLASS.ttlSeconds }));
  } catch (error) {
    await close();
    throw error;
  }
  const lastTokens: bigint[] = sessions.map(() => 0n);
  const name: WorkloadName = options.tls === true ? 'serviceTls' : 'service';
  const tag = options.tls === true ? 't' : 's';
  return {
    name,
    servePid: service.pid,
    phases: ['acquire', 'release', 'cycle'],
    async operation(worker, iteration, record) {
      const session = sessions[worker];
      if (session === undefined) throw new Error(`no session for worker ${worker}: the workload was set up for ${sessions.length}`);
      const key = `${BENCH_NAMESPACE}/${runId}/${tag}${worker}-${iteration}`;
      const startMs = performance.now();
      const grant = await client.acquire({ sessionId: session.sessionId, key, className: BENCH_CLASS.name, waitMs: 0 });
      const acquiredMs = since(startMs);
      if (grant.token <= (lastTokens[worker] ?? 0n)) throw new Error(`token ${grant.token} did not rise above ${lastTokens[worker]}`);
      lastTokens[worker] = grant.token;
      const releaseStartMs = performance.now();
      const released = await client.release({ sessionId: session.sessionId, key, token: grant.token });
      record(1, since(releaseStartMs));
      if (!released.released) throw new Error(`release of ${key} found the hold already gone`);
      record(0, acquiredMs);
      record(2, since(startMs));
    },
    close,
  };
}
