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
 * promoted the lessor (section 3.1): the randomized election timeout is at most 2E - 1 tick, counted in
 * whole ticks (+1 tick), then a vote round and the no-op's commit.
 */
export function electionWorstMs(timers: EtcdTimers): number {
  const e = electionTimeoutMs(timers);
  return 2 * e + 2 * timers.commitMs;
}

export interface LivenessBound {
  /** Crash right after a renewal: TTL, one lessor period to find it, the revoke, the waiter's grant. */
  readonly withoutLeaderChangeMs: number;
  /** The bound: as above plus an election and Promote's extension (the lease restarts at promote). */
  readonly withLeaderChangeMs: number;
  /** A leader change just before expiry restarts the full TTL: about twice the TTL. Rare, but possible. */
  readonly lateLeaderChangeMs: number;
}

export function livenessBound(ttlSeconds: number, timers: EtcdTimers = DEFAULT_ETCD_TIMERS): LivenessBound {
  const ttlMs = ttlSeconds * MS_PER_SECOND;
  const afterExpiryMs = timers.lessorLoopMs + timers.commitMs + timers.commitMs + timers.rpcRoundTripMs;
  const withoutLeaderChangeMs = ttlMs + afterExpiryMs;
  const withLeaderChangeMs = electionWorstMs(timers) + ttlMs + timers.promoteExtendMs + afterExpiryMs;
  return { withoutLeaderChangeMs, withLeaderChangeMs, lateLeaderChangeMs: ttlMs + withLeaderChangeMs };
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
