// ADR-10/11/12: the closed-form side of `lockstep ttl`. What a class's TTL costs the etcd leader, how long
// a crashed holder can block its key, and how often a live holder is fenced by a pause. Pure arithmetic
// over etcd's timers (design/etcd-behaviour.md sections 0, 1.5, 1.7, 3.1); the simulated figures are
// printed beside these, never instead of them.

/** The etcd timers and costs a bound depends on; defaults are etcd 3.4.23's (etcd-behaviour.md section 0). */
export interface EtcdTimers {
  readonly tickMs: number;
  readonly electionTicks: number;
  /** The lessor's runLoop period: an expired lease is found within one period (section 1.7). */
  readonly lessorLoopMs: number;
  /** Promote extends every lease by the election timeout (section 1.5). */
  readonly promoteExtendMs: number;
  /** One quorum write, arbiter to commit and back: the revoke, and the waiter's grant. */
  readonly commitMs: number;
  /** Client to arbiter and back (lock.v1). */
  readonly rpcRoundTripMs: number;
}

export const DEFAULT_ETCD_TIMERS: EtcdTimers = {
  tickMs: 100,
  electionTicks: 10,
  lessorLoopMs: 500,
  promoteExtendMs: 1_000,
  commitMs: 12,
  rpcRoundTripMs: 1,
};

/** ADR-12: a holder fences at send time of its last good keepalive + TTL - 1 s. */
export const FENCE_MARGIN_MS = 1_000;
const MS_PER_SECOND = 1_000;

/** ADR-10: one keepalive per session every TTL/3, served by the leader without a Raft entry. */
export function keepalivesPerSecond(sessions: number, ttlSeconds: number): number {
  return sessions / (ttlSeconds / 3);
}

/** Each hold is one grant txn and one release txn, both quorum writes. */
export function writesPerSecond(sessions: number, holdsPerSessionPerSecond: number): number {
  return 2 * sessions * holdsPerSessionPerSecond;
}

export function electionTimeoutMs(timers: EtcdTimers): number {
  return timers.tickMs * timers.electionTicks;
}

/**
 * Longest time from a leader's death to a new leader that has applied its term's first entry and so
 * promoted the lessor, when the first election round wins (section 3.1): the randomized election timeout
 * is at most 2E - 1 tick, counted in whole ticks (+1 tick), then a vote round and the no-op's commit.
 */
export function electionWorstMs(timers: EtcdTimers): number {
  const e = electionTimeoutMs(timers);
  return 2 * e + 2 * timers.commitMs;
}

/**
 * What each failed election round adds: another randomized timeout and vote round. A round fails when two
 * survivors campaign in the same tick and split the vote, or when a candidate's request reaches a member
 * that heard the old leader within an election timeout and ignores it (CheckQuorum's vote suppression,
 * section 3.1). Either can repeat, with falling odds, so no number of rounds is a worst case: the bounds
 * count one and say so, and `lockstep ttl` reports how many simulated runs needed more.
 */
export function failedElectionRoundMs(timers: EtcdTimers): number {
  return 2 * electionTimeoutMs(timers) + timers.commitMs;
}

export interface LivenessBound {
  /** Crash right after a renewal: TTL, one lessor period to find it, the revoke, the waiter's grant. */
  readonly withoutLeaderChangeMs: number;
  /** The bound: as above plus an election (one round) and Promote's extension (the lease restarts at promote). */
  readonly withLeaderChangeMs: number;
  /** Added to withLeaderChangeMs by each failed election round (failedElectionRoundMs). */
  readonly perFailedElectionRoundMs: number;
  /** A leader change just before expiry restarts the full TTL: about twice the TTL. Rare, but possible. */
  readonly lateLeaderChangeMs: number;
}

export function livenessBound(ttlSeconds: number, timers: EtcdTimers = DEFAULT_ETCD_TIMERS): LivenessBound {
  const ttlMs = ttlSeconds * MS_PER_SECOND;
  const afterExpiryMs = timers.lessorLoopMs + timers.commitMs + timers.commitMs + timers.rpcRoundTripMs;
  const withoutLeaderChangeMs = ttlMs + afterExpiryMs;
  const withLeaderChangeMs = electionWorstMs(timers) + afterPromoteMs(ttlSeconds, timers);
  return { withoutLeaderChangeMs, withLeaderChangeMs, perFailedElectionRoundMs: failedElectionRoundMs(timers), lateLeaderChangeMs: ttlMs + withLeaderChangeMs };
}

/** The part of a liveness bound after a leader serves: the lease restarts at Promote, then expiry, revoke, grant. */
export function afterPromoteMs(ttlSeconds: number, timers: EtcdTimers = DEFAULT_ETCD_TIMERS): number {
  // Promote gives every lease its remaining TTL + extend, and the remaining TTL is the full TTL unless a
  // checkpoint recorded less (etcd-behaviour.md 1.5). ADR-05 enables checkpointing, but etcd schedules one
  // only for leases with more than 5 min left (1.8), which no class's TTL reaches (ADR-11: at most 300 s).
  return ttlSeconds * MS_PER_SECOND + timers.promoteExtendMs + timers.lessorLoopMs + 2 * timers.commitMs + timers.rpcRoundTripMs;
}

export interface QuorumLossBound {
  /** The quorum's return to a leader that has promoted: one election round, bounded only with PreVote (null without). */
  readonly recoveryElectionMs: number | null;
  /** That leader's Promote to the waiter's grant: TTL + extend + lessor scan + revoke and grant commits. */
  readonly afterLeaderMs: number;
  /** The loss to the waiter's grant: outage + election + afterLeader (null when the election has no bound). */
  readonly totalMs: number | null;
}

/**
 * ADR-04/12: a quorum loss of `outageMs` blocks a held key (its holder fences, nothing can expire or revoke
 * it) until the quorum is back, a leader is elected and promotes, and the lease it restarted expires. With
 * PreVote (etcd 3.5's default) the recovery is one election (one round; failedElectionRoundMs per failed
 * round, as after any leader loss). Without it (3.4's default) the lone survivor
 * raised its term at every solo campaign; a member elected at a lower term is deposed by it, and the
 * survivor, whose log is then behind, cannot win: elections repeat until one of the others times out first,
 * a race with no worst case (scenario quorum-loss, default variant).
 */
export function quorumLossBound(ttlSeconds: number, outageMs: number, options: { readonly preVote: boolean }, timers: EtcdTimers = DEFAULT_ETCD_TIMERS): QuorumLossBound {
  const recoveryElectionMs = options.preVote ? electionWorstMs(timers) : null;
  const afterLeaderMs = afterPromoteMs(ttlSeconds, timers);
  return { recoveryElectionMs, afterLeaderMs, totalMs: recoveryElectionMs === null ? null : outageMs + recoveryElectionMs + afterLeaderMs };
}

/**
 * The expected false fences per session-hour from pauses (ADR-12): a pause of length d fences the holder
 * when it swallows the deadline, d > TTL - margin - phase, where phase (time since the last good
 * keepalive was sent) is uniform on [0, TTL/3). `pauseQuantile` maps u in [0,1) to a pause length.
 * Integrated numerically over a grid of both variables (the quantile function needs no density).
 */
export function falseFencesPerSessionHourFromPauses(ttlSeconds: number, pausesPerHour: number, pauseQuantile: (u: number) => number, gridPoints = 400): number {
  if (pausesPerHour <= 0) return 0;
  const ttlMs = ttlSeconds * MS_PER_SECOND;
  const periodMs = ttlMs / 3;
  const pauses = Array.from({ length: gridPoints }, (_, i) => pauseQuantile((i + 0.5) / gridPoints));
  let fencing = 0;
  for (let j = 0; j < gridPoints; j += 1) {
    const phaseMs = ((j + 0.5) / gridPoints) * periodMs;
    const slackMs = ttlMs - FENCE_MARGIN_MS - phaseMs;
    for (const pauseMs of pauses) if (pauseMs > slackMs) fencing += 1;
  }
  return (pausesPerHour * fencing) / (gridPoints * gridPoints);
}

/** An upper 95% bound on a Poisson rate from `events` seen over `exposure` (the rule of three at zero). */
export function poissonUpper95(events: number, exposure: number): number {
  if (exposure <= 0) return Number.POSITIVE_INFINITY;
  // Wilson-Hilferty approximation of the chi-square quantile, exact enough for a planning figure.
  const k = events + 1;
  const z = 1.6448536269514722;
  const upper = k * (1 - 1 / (9 * k) + z * Math.sqrt(1 / (9 * k))) ** 3;
  return (events === 0 ? 2.995732273553991 : upper) / exposure;
}
