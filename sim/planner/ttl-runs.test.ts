import { describe, expect, it } from 'vitest';
import { livenessBound } from '../../core/planner/liveness.js';
import { falseFences, reacquireAfterCrash } from './ttl-runs.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('the liveness bound against a simulated holder crash', () => {
  it('a holder crashing just after a renewal blocks its key for the analytic bound, within 10%', async () => {
    const bound = livenessBound(10);
    const measured = [];
    for (const seed of ['a', 'b', 'c']) measured.push((await reacquireAfterCrash({ ttlSeconds: 10, seed: `crash-${seed}`, yieldToHost, leaderChange: false, crashPhase: 0 })) ?? Infinity);
    for (const ms of measured) {
      expect(ms).toBeLessThanOrEqual(bound.withoutLeaderChangeMs);
      expect(ms).toBeGreaterThanOrEqual(0.9 * bound.withoutLeaderChangeMs);
    }
  });

  it('with the etcd leader crashing too, the waiter gets the key within the leader-change bound, and not 10% sooner', async () => {
    const bound = livenessBound(10);
    const measured = [];
    for (const seed of ['a', 'b', 'c']) measured.push((await reacquireAfterCrash({ ttlSeconds: 10, seed: `leader-${seed}`, yieldToHost, leaderChange: true, crashPhase: 0 })) ?? Infinity);
    for (const ms of measured) expect(ms).toBeLessThanOrEqual(bound.withLeaderChangeMs);
    expect(Math.max(...measured)).toBeGreaterThanOrEqual(0.9 * bound.withLeaderChangeMs);
    // The leader change costs at least an election timeout and Promote's extension over a plain crash.
    expect(Math.min(...measured)).toBeGreaterThan(bound.withoutLeaderChangeMs);
  });

  it('counts pauses longer than the TTL as false fences, and none without pauses', async () => {
    const quiet = await falseFences({ ttlSeconds: 5, seed: 'quiet', yieldToHost, clients: 4, durationMs: 120_000 });
    expect(quiet.fences).toBe(0);
    const paused = await falseFences({ ttlSeconds: 5, seed: 'paused', yieldToHost, clients: 4, durationMs: 120_000, pauses: { pausesPerHour: 120, durationMs: { kind: 'constant', ms: 8_000 } } });
    expect(paused.fences).toBeGreaterThan(0);
    expect(paused.sessionHours).toBeCloseTo(4 * 120_000 / 3_600_000, 6);
  });
});
