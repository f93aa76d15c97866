// lockstep's grant path: acquire (waitMs 0, a fresh key per operation so nobody contends) returns a
// fencing token; release gives the key back. Both go through the in-process Arbiter and the etcd LockLog
// exactly as `lockstep lock` does; each worker is its own identity with its own session, reused.
import { authenticated } from '../../core/ports/caller.js';
import { BENCH_CLASS, BENCH_NAMESPACE, openBenchWorld } from './bench-world.js';
import { type Workload, since } from './workload.js';

export async function grantWorkload(endpoints: readonly string[], workers: number, runId: string, onRenewalError: (message: string) => void): Promise<Workload> {
  const world = await openBenchWorld(endpoints, workers, `bench-grant-${runId}`, onRenewalError);
  const { arbiter, sessions } = world;
  const lastTokens: bigint[] = Array.from({ length: workers }, () => 0n);
  return {
    name: 'grant',
    phases: ['acquire', 'release', 'cycle'],
    async operation(worker, iteration, record) {
      const session = sessions[worker];
      if (session === undefined) throw new Error(`no session for worker ${worker}: the workload was set up for ${sessions.length}`);
      const key = `${BENCH_NAMESPACE}/${runId}/w${worker}-${iteration}`;
      const startMs = performance.now();
      const grant = await arbiter.acquire(authenticated(session.identity), { sessionId: session.sessionId, key, className: BENCH_CLASS.name, waitMs: 0 });
      const acquiredMs = since(startMs);
      if (grant.reentered) throw new Error(`acquire of ${key} re-entered a hold it never had`);
      // A worker's tokens must rise (ADR-02); a bench that saw otherwise would be measuring something broken.
      if (grant.token <= (lastTokens[worker] ?? 0n)) throw new Error(`token ${grant.token} did not rise above ${lastTokens[worker]}`);
      lastTokens[worker] = grant.token;
      const releaseStartMs = performance.now();
      const released = await arbiter.release(authenticated(session.identity), { sessionId: session.sessionId, key, token: grant.token });
      record(1, since(releaseStartMs));
      if (!released.released) throw new Error(`release of ${key} found the hold already gone`);
      record(0, acquiredMs);
      record(2, since(startMs));
    },
    close: () => world.close(),
  };
}
