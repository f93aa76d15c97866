import { describe, expect, it } from 'vitest';
import { pauseTest } from './pause-test.js';
import { runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('pause-test (ADR-17)', () => {
  it('fenced: the stale write is rejected and every check passes', async () => {
    const artifact = await runScenario(pauseTest, 'fenced', '1', { yieldToHost });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.metrics['staleWritesRejected']).toBeGreaterThanOrEqual(1);
    expect(artifact.metrics['staleWritesAccepted']).toBe(0);
    expect(artifact.asDeclared).toBe(true);
  });

  it('unfenced: the stale write lands while the second holder writes, and the fence checker says so', async () => {
    const artifact = await runScenario(pauseTest, 'unfenced', '1', { yieldToHost });
    const fence = artifact.checks.find((c) => c.name === 'fence');
    expect(fence?.ok).toBe(false);
    expect(JSON.stringify(fence?.violations)).toMatch(/unfenced-overlap/);
    expect(artifact.metrics['staleWritesAccepted']).toBeGreaterThanOrEqual(1);
    // the lock service itself did nothing wrong: the log never overlapped
    expect(artifact.checks.find((c) => c.name === 'exclusion')?.ok).toBe(true);
    expect(artifact.asDeclared).toBe(true);
  });

  it('replays to the same trace hash from its seed', async () => {
    const first = await runScenario(pauseTest, 'fenced', '7', { yieldToHost });
    const again = await runScenario(pauseTest, 'fenced', '7', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
  });
});
