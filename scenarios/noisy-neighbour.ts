// Issue 28 in the explorer's swarm: a noisy neighbour, a tenant of its own identity that floods the
// arbiters within its limits (core/limits.ts) for the whole workload: sessions it keeps renewing, holds on
// keys of its own taken and released in bursts, and validations of the victims' keys, at a steady rate.
// The swarm's clients are its victims: the run's checks (false-fence among them, on the victims'
// interests) must still pass, so a neighbour's load up to its limits can neither fence a victim nor break a
// rule. The simulated arbiters do not run the quotas (core/arbiter/quotas.ts wraps only `lockstep serve`'s),
// so this is load within the limits, never a refusal at them: that is src/commands/serve-flood.etcd.test.ts.
// Pinned only (`noisyNeighbour: true`): a seed's own draw never adds it, so no existing run changes.
import { namespaceGrant } from '../core/authz/index.js';
import type { LockGrant } from '../core/classes/index.js';
import { DEFAULT_IDENTITY_LIMITS } from '../core/limits.js';
import { isLockError } from '../core/lock-error.js';
import type { Session } from '../core/ports/arbiter-api.js';
import type { World } from '../sim/world/world.js';
import type { ClientOptions } from '../sim/world/world-options.js';

export const NOISY_NAME = 'noisy-neighbour';
export const NOISY_IDENTITY = `spiffe://sim/${NOISY_NAME}`;
/** Within every default limit, and near the ones a simulated run can afford. */
export const NOISY_SHAPE = { sessions: 4, holdsPerBurst: 8, validationsPerBurst: 12, burstGapMs: 100, renewEveryMs: 1_500 } as const;
const TTL_SECONDS = 5;

/** The neighbour's grant: its own keys and the victims' namespace (it validates their keys). */
export function noisyGrant(namespace: string): LockGrant {
  return namespaceGrant(NOISY_IDENTITY, namespace);
}

export interface NoisyCounts {
  noisyCalls: number;
  noisyRefused: number;
}

/** Starts the neighbour on arbiter `arbiter` until `stopAtMs`; the counts grow as it runs (never awaited, like a worker). */
export interface NoisyOptions {
  readonly arbiter: number;
  readonly namespace: string;
  readonly victimKeys: readonly string[];
  readonly stopAtMs: number;
  /** The run's DeadlineProbe.wrapApi: every client that holds locks goes through it (deadline-probe.ts). */
  readonly wrapApi: NonNullable<ClientOptions['wrapApi']>;
}

export function startNoisyNeighbour(world: World, options: NoisyOptions): NoisyCounts {
  const counts: NoisyCounts = { noisyCalls: 0, noisyRefused: 0 };
  // The renewal path is exempt from the call quotas, but the neighbour stays inside them anyway.
  const perSecond = ((NOISY_SHAPE.sessions + 2 * NOISY_SHAPE.holdsPerBurst + NOISY_SHAPE.validationsPerBurst) * 1000) / NOISY_SHAPE.burstGapMs;
  if (perSecond > DEFAULT_IDENTITY_LIMITS.callsPerSecond || NOISY_SHAPE.sessions > DEFAULT_IDENTITY_LIMITS.sessions) throw new Error('the noisy neighbour must stay within its limits');
  const node = world.addClient(NOISY_NAME, { identity: NOISY_IDENTITY, arbiter: options.arbiter, wrapApi: options.wrapApi });
  const clock = node.process.clock();
  const call = async <T>(promise: Promise<T>): Promise<T | undefined> => {
    counts.noisyCalls += 1;
    return promise.catch((error: unknown) => {
      if (!isLockError(error)) throw error;
      counts.noisyRefused += 1;
      return undefined;
    });
  };
  void (async () => {
    let sessions: Session[] = [];
    let renewedAtMs = Number.NEGATIVE_INFINITY;
    for (let burst = 0; clock.now() < options.stopAtMs; burst += 1) {
      if (sessions.length < NOISY_SHAPE.sessions) {
        const opened = await call(node.api.openSession({ ttlSeconds: TTL_SECONDS }));
        if (opened !== undefined) sessions.push(opened);
      }
      if (clock.now() - renewedAtMs >= NOISY_SHAPE.renewEveryMs) {
        renewedAtMs = clock.now();
        const alive = await Promise.all(sessions.map((s) => call(node.api.keepAlive({ sessionId: s.sessionId })).then((answer) => (answer === undefined ? undefined : s))));
        sessions = alive.filter((s): s is Session => s !== undefined);
      }
      const session = sessions[burst % Math.max(1, sessions.length)];
      const keys = Array.from({ length: NOISY_SHAPE.holdsPerBurst }, (_, i) => `${options.namespace}/noise-${burst % 4}-${i}`);
      const grants = session === undefined ? [] : await Promise.all(keys.map((key) => call(node.api.acquire({ sessionId: session.sessionId, key, className: 'ledger-writes', waitMs: 0 }))));
      await Promise.all(options.victimKeys.flatMap((key) => Array.from({ length: Math.ceil(NOISY_SHAPE.validationsPerBurst / options.victimKeys.length) }, () => call(node.api.validate({ key, token: '1' })))));
      await Promise.all(grants.map((grant) => (grant === undefined ? undefined : call(node.api.release({ sessionId: grant.sessionId, key: grant.key, token: grant.token })))));
      await clock.sleep(NOISY_SHAPE.burstGapMs);
    }
  })();
  return counts;
}
