// A real-etcd world for the arbiter and client tests: one throwaway 1-member cluster per test file, an
// Arbiter wired with a small class registry, prefix grants, the real clock and a seeded Random, and the
// plumbing every such test needs (unique keys, sessions closed after each test, raw reads of the log to
// check what the arbiter wrote). Nothing here decides an expected outcome; the tests do.
import { bigintAsDecimal } from '../../core/json-text.js';
import { authenticated } from '../../core/ports/caller.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { Arbiter, type ArbiterOptions } from '../../core/arbiter/arbiter.js';
import { initLog } from '../../core/arbiter/init-log.js';
import { PrefixGrants, namespaceGrant, namespaceOperatorGrant } from '../../core/authz/index.js';
import { ClassRegistry, type LockClass } from '../../core/classes/index.js';
import { LockError } from '../../core/lock-error.js';
import { holderKeyOf, parseLockKey } from '../../core/lock-key.js';
import type { Session } from '../../core/ports/arbiter-api.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import type { KeyValue, LockLog } from '../../core/ports/lock-log.js';
import { createRealClock, createSeededRandom } from '../clock/index.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type EtcdCluster, startEtcdCluster } from './etcd-cluster.js';

export const NAMESPACE = 'orders';
/** Homed elsewhere in the redirect test; only BILLER may lock here. */
export const OTHER_NAMESPACE = 'billing';

export const ALICE = 'spiffe://lockstep.test/ns/orders/sa/alice';
export const BOB = 'spiffe://lockstep.test/ns/orders/sa/bob';
export const CAROL = 'spiffe://lockstep.test/ns/orders/sa/carol';
export const DAVE = 'spiffe://lockstep.test/ns/orders/sa/dave';
export const BILLER = 'spiffe://lockstep.test/ns/billing/sa/biller';
/** Two people with operator grants on both namespaces (ADR-20), as the transport would name them. */
export const OPERATOR_IDS = ['spiffe://ops/ana', 'spiffe://ops/ben'] as const;
export const OPERATORS = [authenticated(OPERATOR_IDS[0]), authenticated(OPERATOR_IDS[1])] as const;

/** The classes every namespace of the fixture declares: TTL 5 s is the platform minimum (ADR-11). */
export const FENCED = { name: 'fenced-writes', ttlSeconds: 15 } as const;
export const FENCED_SHORT = { name: 'fenced-short', ttlSeconds: 5 } as const;
/** ADR-14's priced option: waiters keep their place in the log (/q keys). */
export const DURABLE = { name: 'fenced-durable', ttlSeconds: 15 } as const;
/** Advisory classes have a 30 s TTL floor (ADR-11). */
export const ADVISORY = { name: 'advisory-writes', ttlSeconds: 30 } as const;

function lockClass(namespace: string, name: string, enforcement: 'fenced' | 'advisory', ttlSeconds: number, fairness: 'memory' | 'durable' = 'memory'): LockClass {
  const common = { namespace, name, purpose: 'correctness', ttlSeconds, tier: 'entity', onQuorumLoss: 'closed', fairness } as const;
  return enforcement === 'fenced'
    ? { ...common, enforcement, resource: `postgresql://${namespace}-db/${name}` }
    : { ...common, enforcement, riskOwner: `team-${namespace}`, waiverExpires: '2099-12-31' };
}

export function fixtureClasses(): ClassRegistry {
  return new ClassRegistry(
    [NAMESPACE, OTHER_NAMESPACE].flatMap((namespace) => [
      lockClass(namespace, FENCED.name, 'fenced', FENCED.ttlSeconds),
      lockClass(namespace, FENCED_SHORT.name, 'fenced', FENCED_SHORT.ttlSeconds),
      lockClass(namespace, ADVISORY.name, 'advisory', ADVISORY.ttlSeconds),
      lockClass(namespace, DURABLE.name, 'fenced', DURABLE.ttlSeconds, 'durable'),
    ]),
  );
}

export function fixtureGrants(): PrefixGrants {
  return new PrefixGrants([
    ...[ALICE, BOB, CAROL, DAVE].map((identity) => namespaceGrant(identity, NAMESPACE)),
    namespaceGrant(BILLER, OTHER_NAMESPACE),
    ...OPERATOR_IDS.flatMap((identity) => [namespaceOperatorGrant(identity, NAMESPACE), namespaceOperatorGrant(identity, OTHER_NAMESPACE)]),
  ]);
}

let arbiterCount = 0;

/** An Arbiter over `log` with the fixture's classes and grants; the seed of its jitter is in its name. */
export function fixtureArbiter(log: LockLog, overrides: Partial<ArbiterOptions> = {}): Arbiter {
  arbiterCount += 1;
  return new Arbiter({
    log,
    clock: createRealClock(),
    random: createSeededRandom(`arbiter-fixture-${arbiterCount}`),
    classes: fixtureClasses(),
    authorizer: fixtureGrants(),
    ...overrides,
  });
}

/** The LockError `promise` rejects with; fails if it resolves or rejects with anything else. */
export async function lockErrorOf(promise: Promise<unknown>): Promise<LockError> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if ('resolved' in outcome) throw new Error(`expected a LockError, but the call succeeded with ${String(JSON.stringify(outcome.resolved, bigintAsDecimal))}`);
  if (!(outcome.rejected instanceof LockError)) throw new Error(`expected a LockError, got ${String(outcome.rejected)}`, { cause: outcome.rejected });
  return outcome.rejected;
}

export interface ArbiterWorld {
  readonly cluster: () => EtcdCluster;
  /** A plain client of the cluster, for reading what the arbiter wrote. */
  readonly log: () => LockLog;
  /** A new Arbiter (on the file's cluster unless `overrides.log` says otherwise), closed after the file. */
  arbiter(overrides?: Partial<ArbiterOptions>): Arbiter;
  /** A LockLog on `endpoints`, closed after the file. */
  openLog(endpoints: readonly string[]): LockLog;
  /** Another throwaway 1-member cluster, stopped after the file; initialised (initLog) unless `init` is false. */
  startCluster(options?: { readonly init?: boolean }): Promise<EtcdCluster>;
  /** A key under NAMESPACE (or `namespace`) that no other test of this file uses (each file has its own cluster). */
  key(label: string, namespace?: string): string;
  /** Opens a session, closed again after the test so its lease cannot expire (a write) during a later one. */
  session(arbiter: ArbiterService, identity: string, ttlSeconds: number, instance?: string): Promise<Session>;
  /** The cluster's current revision, from a Maintenance.Status header. */
  revision(log?: LockLog): Promise<bigint>;
  /** The holder record of `key` as etcd stores it, or undefined. */
  holder(key: string, log?: LockLog): Promise<KeyValue | undefined>;
}

/** Registers the hooks that start the file's cluster and clean up after each test and the file. */
export function useArbiterWorld(): ArbiterWorld {
  let cluster: EtcdCluster | undefined;
  let log: LockLog | undefined;
  const clusters: EtcdCluster[] = [];
  const logs: LockLog[] = [];
  const arbiters: Arbiter[] = [];
  let sessions: Array<{ arbiter: ArbiterService; session: Session }> = [];
  let keyCount = 0;

  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 1 });
    clusters.push(cluster);
    log = createEtcdLockLog({ endpoints: cluster.endpoints });
    logs.push(log);
    await initLog(log); // the operator's step (lockstep init): no arbiter writes the epoch record itself
  });
  afterEach(async () => {
    const open = sessions;
    sessions = [];
    await Promise.all(open.map(({ arbiter, session }) => arbiter.closeSession(authenticated(session.identity), { sessionId: session.sessionId }).catch(() => undefined)));
  });
  afterAll(async () => {
    for (const arbiter of arbiters) arbiter.close();
    await Promise.all(logs.map((l) => l.close()));
    await Promise.all(clusters.map((c) => c.stop()));
  });

  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} did not start (see the beforeAll error above)`);
    return value;
  };
  const world: ArbiterWorld = {
    cluster: () => required(cluster, 'the etcd cluster'),
    log: () => required(log, 'the etcd client'),
    arbiter(overrides = {}) {
      const arbiter = fixtureArbiter(overrides.log ?? world.log(), overrides);
      arbiters.push(arbiter);
      return arbiter;
    },
    openLog(endpoints) {
      const opened = createEtcdLockLog({ endpoints: [...endpoints] });
      logs.push(opened);
      return opened;
    },
    async startCluster({ init = true } = {}) {
      const started = await startEtcdCluster({ members: 1 });
      clusters.push(started);
      if (init) await initLog(world.openLog(started.endpoints));
      return started;
    },
    key(label, namespace = NAMESPACE) {
      keyCount += 1;
      return `${namespace}/${label}-${keyCount}`;
    },
    async session(arbiter, identity, ttlSeconds, instance) {
      const session = await arbiter.openSession(authenticated(identity), { ttlSeconds, ...(instance === undefined ? {} : { instance }) });
      sessions.push({ arbiter, session });
      return session;
    },
    async revision(from = world.log()) {
      return (await from.status()).header.revision;
    },
    async holder(key, from = world.log()) {
      return (await from.range({ key: holderKeyOf(parseLockKey(key)) })).kvs[0];
    },
  };
  return world;
}
