import { describe, expect, it } from 'vitest';
import type { Fault } from './faults.js';
import { SCENARIOS } from './registry.js';
import { HORIZON_CHECK, runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
// Short, so that the test is quick; still past every scenario's own run length but hot-key's, which then ends at once.
const HORIZON_MS = 60_000;

describe('the horizon of a run', () => {
  // The scenarios that wait for their workload to finish; the others (the swarm, the two-holder ones) run for a fixed time.
  const WAITING = ['pause-test', 'hot-key', 'watch-loss', 'restore', 'shard-move'];

  it.each(SCENARIOS.map((s) => [s.name, s] as const))('gives %s a verdict when every client is paused for good, with the checks of what happened', async (name, scenario) => {
    const own = await runScenario(scenario, undefined, '1', { yieldToHost, timeline: { maxRecords: 0 } });
    expect(own.checks.some((c) => c.name === HORIZON_CHECK)).toBe(false); // negative control: its own schedule finishes
    const clients = (own.timeline?.processes ?? []).filter((p) => p.role === 'client').map((p) => p.name);
    expect(clients.length).toBeGreaterThan(0);
    const frozen: Fault[] = clients.map((target) => ({ atMs: 0, kind: 'pause', target }));
    const run = await runScenario(scenario, undefined, '1', { yieldToHost, faults: frozen, horizonMs: HORIZON_MS });
    // The other checks ran on what happened, up to the horizon if the run got there.
    expect(run.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['exclusion', 'token-order', 'fence', 'raft-safety']));
    expect(run.appliedFaults.length).toBeGreaterThanOrEqual(clients.length);
    const horizon = run.checks.find((c) => c.name === HORIZON_CHECK);
    if (!WAITING.includes(name)) {
      expect(horizon).toBeUndefined();
      return;
    }
    expect(horizon?.ok).toBe(false);
    expect(run.checks[0]?.name).toBe(HORIZON_CHECK); // the first failure a reader (or the explorer) sees
    expect(horizon?.detail).toMatch(/^did not finish: .* had not finished by the run's horizon, 60000 ms of simulated time after the workload started; not running then: .*paused/);
    expect(run.ok).toBe(false);
    expect(run.metrics).toEqual({});
  });

  it('lets a long pause end the run normally when its holder resumes before the horizon', async () => {
    const pauseTest = SCENARIOS.find((s) => s.name === 'pause-test');
    if (pauseTest === undefined) throw new Error('no pause-test');
    // Past the scenario's own 25 s: before the horizon, the scenario waited for a result nothing would ever settle.
    const run = await runScenario(pauseTest, 'fenced', '1', { yieldToHost, faults: [{ atMs: 1000, kind: 'pause', target: 'alice', forMs: 30_000 }] });
    expect(run.checks.some((c) => c.name === HORIZON_CHECK)).toBe(false);
    expect(run.ok).toBe(true);
    expect(run.simulatedMs).toBeGreaterThan(31_000);
  });

  it('gives the same trace twice for a run that hits its horizon', async () => {
    const pauseTest = SCENARIOS.find((s) => s.name === 'pause-test');
    if (pauseTest === undefined) throw new Error('no pause-test');
    // Both holders frozen for good: the kit, which runs on the second holder's clock, never finishes.
    const faults: Fault[] = [{ atMs: 1000, kind: 'pause', target: 'alice' }, { atMs: 1000, kind: 'pause', target: 'bob' }];
    const [a, b] = [await runScenario(pauseTest, 'fenced', '3', { yieldToHost, faults, horizonMs: HORIZON_MS }), await runScenario(pauseTest, 'fenced', '3', { yieldToHost, faults, horizonMs: HORIZON_MS })];
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.checks[0]?.name).toBe(HORIZON_CHECK);
  });
});
