// How a lease keepalive is spread over etcd's members, by both LockLog adapters: src/etcd/ against real
// etcd, sim/cluster/ against the simulated one, so the simulator predicts what the real client does
// (issue 11, L6: one stuck member cost a false fence with a healthy quorum, because a keepalive waited its
// full request deadline on the first member before failing over). One rule, one place.
import type { LockLogErrorCode } from './lock-log-error.js';

/**
 * Deadline of a keepalive, every member's attempt included. It must end inside the fence budget, so that
 * a keepalive nobody answered is given up while a retry can still renew: from a keepalive's send to the
 * fence there are 2·TTL/3 − 1 s (ADR-12), 2.33 s at the platform's minimum TTL of 5 s (ADR-11), 9 s at
 * the default 15 s. A healthy keepalive is answered by the leader without a Raft entry, in milliseconds;
 * its slow paths (the leader waiting up to 1 s for its applied index, a follower forwarding while a
 * leader is elected) are what the hedge is for, not this deadline.
 */
export const KEEPALIVE_TIMEOUT_MS = 2_000;

/**
 * A keepalive not answered in this long is sent to the next member too (a keepalive may be sent twice:
 * it renews, it writes nothing to the log). 500 ms is many round trips on any network a lock cluster
 * runs on, and leaves a TTL-5 s holder 1.8 s of its fence budget for the next member's answer.
 */
export const KEEPALIVE_HEDGE_AFTER_MS = 500;

/** Answers another member would give too: a hedged keepalive ends on them at once. */
export const KEEPALIVE_DEFINITIVE_CODES: ReadonlySet<LockLogErrorCode> = new Set(['lease-not-found', 'invalid-argument', 'cancelled']);
