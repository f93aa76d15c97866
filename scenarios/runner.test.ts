import { describe, expect, it } from 'vitest';
import { hostYield } from '../src/host-yield.js';
import { toJson } from './history.js';
import { pauseTest } from './pause-test.js';
import { quorumLoss } from './quorum-loss.js';
import { runScenario } from './runner.js';
import { swarm } from './swarm.js';

const yieldToHost = hostYield();

/** The artifact as JSON text, its trace hash left out. */
const withoutHash = (run: object): string => toJson({ ...run, traceHash: undefined });

describe('a run without its trace hashed (issue 16: the explorer\'s runs)', () => {
  // pause-test's unfenced variant fails its checks, and its deadline probe subscribes to the trace;
  // quorum-loss subscribes to it too; the swarm runs the explorer's own workload.
  it.each([
    { scenario: pauseTest, variant: 'unfenced', seed: '3' },
    { scenario: quorumLoss, variant: undefined, seed: '2' },
    { scenario: swarm, variant: undefined, seed: '5' },
  ])('gives $scenario.name the same checks, history, metrics and timeline as with hashing, and claims no hash', async ({ scenario, variant, seed }) => {
    const hashed = await runScenario(scenario, variant, seed, { yieldToHost, timeline: true });
    const unhashed = await runScenario(scenario, variant, seed, { yieldToHost, timeline: true, hashTrace: false });
    expect(hashed.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect('traceHash' in unhashed).toBe(false);
    expect(unhashed.timeline?.records.length).toBeGreaterThan(20);
    expect(withoutHash(unhashed)).toBe(withoutHash(hashed));
    // The comparison can fail: another seed's run differs.
    const other = await runScenario(scenario, variant, String(Number(seed) + 1), { yieldToHost, timeline: true, hashTrace: false });
    expect(withoutHash(other)).not.toBe(withoutHash(hashed));
  });

  it('leaves a hashed run\'s hash as it was without a timeline', async () => {
    const plain = await runScenario(pauseTest, 'unfenced', '3', { yieldToHost });
    const explicit = await runScenario(pauseTest, 'unfenced', '3', { yieldToHost, hashTrace: true, timeline: true });
    expect(explicit.traceHash).toBe(plain.traceHash);
    expect(plain.ok).toBe(false);
  });
});
