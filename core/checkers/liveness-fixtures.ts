// Small liveness runs built by hand for the liveness checkers' tests: a TTL of 5 s, a poll of 1.2 s, a bound of 1 s.
import type { Disturbance, GrantRecord, Interest, LivenessRun } from './run-history.js';

export const TTL_MS = 5_000;
export const POLL_MS = 1_200;
export const BOUND_MS = 1_000;

export function livenessRun(interests: readonly Interest[], disturbances: readonly Disturbance[] = [], endedAtMs = 60_000): LivenessRun {
  return { interests, disturbances, bounds: { ttlMs: TTL_MS, pollIntervalMs: POLL_MS, boundMs: BOUND_MS, endedAtMs } };
}

export function hold(holder: string, token: bigint, grantedAtMs: number, endedAtMs?: number, key = 'k'): GrantRecord {
  return { key, token, holder, revision: token, grantedAtMs, ...(endedAtMs === undefined ? {} : { endedAtMs, endedAtRevision: token + 1n, endReason: 'release' as const }) };
}

export function interest(holder: string, fields: Partial<Interest> & Pick<Interest, 'fromMs' | 'outcome'>): Interest {
  return { holder, task: `${holder}/task-1`, key: 'k', waitMs: 8_000, ...fields };
}

export function disturbance(fromMs: number, toMs?: number, quorumHealthy = false): Disturbance {
  return { what: 'a fault', fromMs, ...(toMs === undefined ? {} : { toMs }), quorumHealthy };
}
