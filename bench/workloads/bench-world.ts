// The lockstep side of the bench: an in-process Arbiter over the real etcd LockLog, wired as
// `lockstep lock` wires it (src/commands/lock.ts), with one bench class and a grant per worker identity.
import { authenticated } from '../../core/ports/caller.js';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry, type LockClass } from '../../core/classes/index.js';
import type { Session } from '../../core/ports/arbiter-api.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { createRealClock, createSeededRandom } from '../../src/clock/index.js';
import { createEtcdLockLog } from '../../src/etcd/index.js';
import { renewSessions } from '../renewal.js';

export const BENCH_NAMESPACE = 'bench';
/** A fenced entity-tier class at the platform's default TTL (ADR-11). */
export const BENCH_CLASS: LockClass = {
  namespace: BENCH_NAMESPACE,
  name: 'bench-writes',
  purpose: 'correctness',
  enforcement: 'fenced',
  resource: 'bench://lockstep/bench-writes',
  ttlSeconds: 15,
  tier: 'entity',
  onQuorumLoss: 'closed',
  fairness: 'memory',
};

export function workerIdentity(worker: number): string {
  return `spiffe://lockstep.bench/ns/${BENCH_NAMESPACE}/sa/worker-${worker}`;
}

export function benchClasses(): ClassRegistry {
  return new ClassRegistry([BENCH_CLASS]);
}

/** Each of `identities` workers may lock anywhere in the bench namespace. */
export function benchGrants(identities: number): PrefixGrants {
  return new PrefixGrants(Array.from({ length: identities }, (_, i) => namespaceGrant(workerIdentity(i), BENCH_NAMESPACE)));
}

export interface BenchWorld {
  readonly arbiter: Arbiter;
  readonly log: LockLog;
  /** One session per identity, opened before any timing starts and reused by every operation. */
  readonly sessions: readonly Session[];
  close(): Promise<void>;
}

/** An arbiter on `endpoints` with `identities` sessions open (one per worker). */
export async function openBenchWorld(endpoints: readonly string[], identities: number, seed: string, onRenewalError: (message: string) => void): Promise<BenchWorld> {
  const log = createEtcdLockLog({ endpoints: [...endpoints] });
  const names = Array.from({ length: identities }, (_, i) => workerIdentity(i));
  const arbiter = new Arbiter({
    log,
    clock: createRealClock(),
    random: createSeededRandom(seed),
    classes: benchClasses(),
    authorizer: benchGrants(identities),
  });
  const sessions: Session[] = [];
  let stopRenewal = () => {};
  const close = async (): Promise<void> => {
    stopRenewal();
    await Promise.all(sessions.map((s) => arbiter.closeSession(authenticated(s.identity), { sessionId: s.sessionId }).catch(() => undefined)));
    arbiter.close();
    await log.close();
  };
  try {
    // Sequential, not all at once: a few hundred lease grants in one burst is a load test of its own.
    for (const identity of names) sessions.push(await arbiter.openSession(authenticated(identity), { ttlSeconds: BENCH_CLASS.ttlSeconds }));
  } catch (error) {
    await close();
    throw error;
  }
  stopRenewal = renewSessions(arbiter, sessions, onRenewalError).stop;
  return { arbiter, log, sessions, close };
}
