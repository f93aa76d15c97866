import { describe, expect, it } from 'vitest';
import { type RunArtifact, runScenario } from './runner.js';
import { watchLoss } from './watch-loss.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const failedChecks = (artifact: RunArtifact): string[] => artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
const metric = (artifact: RunArtifact, name: string): number => {
  const value = artifact.metrics[name];
  if (value === undefined) throw new Error(`watch-loss reports no metric ${name}`);
  return value;
};
/** The arbiter polls every 1 s ± 20% (ADR-15); a grant txn and its apply take a few ms more. */
const POLL_BOUND_MS = 1_200 + 50;
/** A release seen through a working watch: an event, one grant txn. */
const WATCH_BOUND_MS = 50;

describe('watch-loss (ADR-15)', () => {
  it('events-lost: the waiter is granted at its next poll, within about a second of the release', async () => {
    const artifact = await runScenario(watchLoss, 'events-lost', '1', { yieldToHost });
    expect(failedChecks(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(metric(artifact, 'waiterGrants')).toBe(6);
    expect(metric(artifact, 'failedAcquires')).toBe(0);
    // Rounds 1-3: the delete event wakes the waiter's arbiter at once.
    expect(metric(artifact, 'grantDelayWithoutLossMsMax')).toBeLessThan(WATCH_BOUND_MS);
    // Rounds 4-6: the events were swallowed (one delete per round at least), so no grant came from an
    // event: each came from a poll, later than any event would have, and no later than one poll period.
    expect(metric(artifact, 'watchBatchesDropped')).toBeGreaterThanOrEqual(3);
    expect(metric(artifact, 'grantDelayWithLossMsMin')).toBeGreaterThan(WATCH_BOUND_MS);
    expect(metric(artifact, 'grantDelayWithLossMsMax')).toBeLessThanOrEqual(POLL_BOUND_MS);
    expect(metric(artifact, 'watchesCompacted')).toBe(0);
  });

  it('compacted: each compacted watch is followed by a grant attempt and a new watch, and the release is seen at once', async () => {
    const artifact = await runScenario(watchLoss, 'compacted', '1', { yieldToHost });
    expect(failedChecks(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(metric(artifact, 'waiterGrants')).toBe(6);
    // One compacted watch per lossy round, each replaced by a watch from the new revision.
    expect(metric(artifact, 'watchesCompacted')).toBe(3);
    expect(metric(artifact, 'watchesOpened')).toBe(metric(artifact, 'rounds') + metric(artifact, 'watchesCompacted'));
    // The cancellation itself triggers an attempt (ADR-15: "retries the grant transaction immediately").
    expect(metric(artifact, 'attemptsPerRoundWithLoss')).toBeGreaterThan(metric(artifact, 'attemptsPerRoundWithoutLoss'));
    // The new watch delivers the release: no poll needed.
    expect(metric(artifact, 'grantDelayWithLossMsMax')).toBeLessThan(WATCH_BOUND_MS);
    expect(metric(artifact, 'watchBatchesDropped')).toBe(0);
  });

  it('replays to the same trace hash from its seed', async () => {
    const first = await runScenario(watchLoss, 'compacted', '7', { yieldToHost });
    const again = await runScenario(watchLoss, 'compacted', '7', { yieldToHost });
    expect(again.traceHash).toBe(first.traceHash);
    expect(again.metrics).toEqual(first.metrics);
  });
});
