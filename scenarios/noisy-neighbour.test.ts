// Issue 28 in the simulator: the swarm with a noisy neighbour flooding within its limits beside the
// clients, under each seed's own fault schedule. Every check of the run passes, false-fence among them
// (judged on the victims' holds): a tenant at its limits fences nobody else. The control: the
// neighbour really floods (thousands of calls, more than the victims make), and the run without it is
// the same seed's ordinary swarm run, which also passes (swarm.test.ts).
import { describe, expect, it } from 'vitest';
import { runScenario } from './runner.js';
import { runSwarm, swarm } from './swarm.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const noisy: typeof swarm = { ...swarm, run: (context) => runSwarm(context, undefined, { noisyNeighbour: true }) };

describe('the swarm with a noisy neighbour (issue 28)', () => {
  it.each(['1', '2'])('seed %s: every check passes, false-fence on the victims included, while the neighbour floods', async (seed) => {
    const artifact = await runScenario(noisy, undefined, seed, { yieldToHost });
    expect(artifact.parameters).toMatchObject({ noisyNeighbour: true, mutant: 'none' });
    expect(artifact.checks.map((c) => c.name)).toContain('false-fence');
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.metrics['noisyCalls']).toBeGreaterThan(1000);
    expect(artifact.metrics['noisyCalls']).toBeGreaterThan(2 * (artifact.metrics['acquires'] ?? 0));
  });
});
