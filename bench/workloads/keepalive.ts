// ADR-10's cost: how many session keepalives a second the etcd leader sustains. Sessions are opened
// through the Arbiter (one lease each, as the client library opens them); then workers renew them
// round-robin as fast as they can, through Arbiter.keepAlive, which is the path a session's renewal takes.
import { authenticated } from '../../core/ports/caller.js';
import { openBenchWorld } from './bench-world.js';
import { type Workload, since } from './workload.js';

export async function keepaliveWorkload(endpoints: readonly string[], sessionCount: number, runId: string, onRenewalError: (message: string) => void): Promise<Workload> {
  const world = await openBenchWorld(endpoints, sessionCount, `bench-keepalive-${runId}`, onRenewalError);
  const { arbiter, sessions } = world;
  let next = 0;
  return {
    name: 'keepalive',
    phases: ['keepalive'],
    async operation(_worker, _iteration, record) {
      const session = sessions[next % sessions.length];
      next += 1;
      if (session === undefined) throw new Error('the keepalive workload has no sessions');
      const startMs = performance.now();
      const renewed = await arbiter.keepAlive(authenticated(session.identity), { sessionId: session.sessionId });
      record(0, since(startMs));
      if (renewed.ttlSeconds <= 0) throw new Error(`session ${session.sessionId} expired during the bench`);
    },
    close: () => world.close(),
  };
}
