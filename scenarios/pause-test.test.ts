import { describe, expect, it } from 'vitest';
import { pauseTest } from './pause-test.js';
import { runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('pause-test (ADR-17)', () => {
  it('fenced: the stale write is rejected and every check passes', async () => {
    const artifact = await runScenario(pauseTest, 'fenced', '1', { yieldToHost });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.metrics['staleWritesRejected']).toBe(1);
    expect(artifact.metrics['staleWritesAccepted']).toBe(0);
    expect(artifact.metrics['kitPassed']).toBe(1);
    // The second holder was granted the key while the first was frozen, once the log had expired its hold.
    expect(artifact.metrics['secondHolderWaitMs']).toBeGreaterThan(0);
    const grants = (artifact.history as { grants: Array<{ holder: string; endReason?: string }> }).grants;
    expect(grants.map((g) => [g.holder, g.endReason])).toEqual([['spiffe://sim/alice', 'expiry'], ['spiffe://sim/bob', 'release']]);
    expect(artifact.asDeclared).toBe(true);
  });

  it('unfenced: the stale write lands while the second holder writes, and the fence checker says so', async () => {
    const artifact = await runScenario(pauseTest, 'unfenced', '1', { yieldToHost });
    const fence = artifact.checks.find((c) => c.name === 'fence');
    expect(fence?.ok).toBe(false);
    expect(JSON.stringify(fence?.violations)).toMatch(/unfenced-stale-write/);
    expect(artifact.metrics['staleWritesAccepted']).toBe(1);
    expect(artifact.metrics['kitPassed']).toBe(0);
    // the lock service itself did nothing wrong: the log never overlapped
    expect(artifact.checks.find((c) => c.name === 'exclusion')?.ok).toBe(true);
    expect(artifact.asDeclared).toBe(true);
  });

  it('a schedule that never resumes the first holder leaves the kit unfinished, and no check fails', async () => {
    const artifact = await runScenario(pauseTest, 'fenced', '1', { yieldToHost, faults: [{ atMs: 1_000, kind: 'pause', target: 'alice' }] });
    expect(artifact.metrics['kitPassed']).toBe(-1);
    expect(artifact.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([]);
  });

  it('replays to the same trace hash from its seed', async () => {
    const first = await runScenario(pauseTest, 'fenced', '7', { yieldToHost });
    const again = await runScenario(pauseTest, 'fenced', '7', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
  });
});
