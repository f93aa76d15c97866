// Every limit on what a caller controls, in one place (issue 28, STYLE.md "a limit on everything"), each
// with the refusal it earns: `invalid-argument` for a request that is wrong whatever the load (too large,
// too long), `resource-exhausted` for a caller at one of its quotas (nothing happened; retry later, or ask
// the namespace owners for a raise). docs/limits.md lists them with their defaults and where they are
// raised. ADR-18: the quotas live in the arbiter (core/arbiter/quotas.ts), which every transport shares.

/**
 * Largest lock.v1 / admin.v1 message the server reads and the client sends or reads, in bytes. A lock
 * request is a few hundred bytes (a 256-character key, a class name, a token); 64 KiB is two orders above
 * that and far below what a flood needs to stall the event loop (issue 28: a 32 MiB key took serve from
 * 109 to 834 MiB). The RPC stack refuses a larger message before reading it whole (`resource-exhausted`).
 */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/**
 * Longest wait in line an arbiter allows a request by default (ArbiterOptions.maxWaitMs raises or lowers it);
 * `lockstep lock --wait` refuses a longer one before connecting. Here rather than in core/arbiter/arbiter.ts
 * so the CLI reads it without loading the arbiter (issue 30).
 */
export const DEFAULT_MAX_WAIT_MS = 10 * 60 * 1000;

/** Longest lock key, in UTF-16 code units (core/lock-key.ts checks it before anything else reads the key). */
export const MAX_KEY_LENGTH = 256;

/** What one log line may carry of a caller's text (ADR-22): a key's first characters, a refusal's message. */
export const LOG_KEY_PREFIX_CHARS = 80;
export const LOG_MESSAGE_CHARS = 400;
/** No log line of the call log is longer than this (the test of issue 28 greps for longer ones). */
export const MAX_LOG_LINE_CHARS = 2048;

/** Proposals (force-release, epoch advance) waiting for approval on one arbiter, in all (approvals.ts). */
export const MAX_PENDING_APPROVALS = 1000;
/** Of those, at most this many proposed by one operator, so one operator cannot fill the table... */
export const MAX_PENDING_APPROVALS_PER_OPERATOR = 20;
/** ...and at most this many for one namespace's keys (an epoch advance counts under the log, not a namespace). */
export const MAX_PENDING_APPROVALS_PER_NAMESPACE = 100;

/** Per-identity quotas (core/arbiter/quotas.ts); a LockGrant's `limits` raises them for its identity. */
export interface IdentityLimits {
  /** Sessions open at once (each is an etcd lease). */
  readonly sessions: number;
  /** Holds granted at once. */
  readonly holds: number;
  /** Acquires waiting in line at once (waitMs > 0, not yet answered). */
  readonly waiters: number;
  /** Calls in flight at once, of every kind but the renewal path (keepalive, release, close). */
  readonly concurrentCalls: number;
  /** Token bucket: calls per second sustained, and the burst above it (renewal path exempt). */
  readonly callsPerSecond: number;
  readonly callBurst: number;
}

export const IDENTITY_LIMIT_NAMES = ['sessions', 'holds', 'waiters', 'concurrentCalls', 'callsPerSecond', 'callBurst'] as const satisfies ReadonlyArray<keyof IdentityLimits>;

/**
 * Platform defaults: generous for one workload (the bench's clients stay far below them), small enough
 * that one identity cannot fill etcd with leases or the arbiter with waiters (issue 28: 2,000 sessions
 * in 6.7 s from one workload, none refused).
 */
export const DEFAULT_IDENTITY_LIMITS: IdentityLimits = {
  sessions: 256,
  holds: 4096,
  waiters: 1024,
  concurrentCalls: 512,
  callsPerSecond: 5000,
  callBurst: 10_000,
};

/** The most a grant may raise any one quota to: a raise is a review decision, not a way round the bound. */
export const MAX_GRANTED_LIMIT = 1_000_000;
