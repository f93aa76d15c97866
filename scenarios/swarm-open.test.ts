import { describe, expect, it } from 'vitest';
import { toFaults } from './explore-schedule.js';
import { mutantNamed } from './mutants.js';
import { runScenario } from './runner.js';
import { runSwarm, swarm, swarmParameters } from './swarm.js';
import { drawsOpenClass } from './swarm-open.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const SEEDS = Array.from({ length: 40 }, (_, i) => String(i + 1));

describe('the swarm draws a class that fails open (ADR-04, issue 33)', () => {
  it('on about a quarter of seeds, from a stream of its own', () => {
    const open = SEEDS.filter(drawsOpenClass);
    expect(open.length).toBeGreaterThan(4);
    expect(open.length).toBeLessThan(20);
    expect(open).toContain('4');
    for (const seed of SEEDS) expect(swarmParameters(seed).openClass).toBe(drawsOpenClass(seed));
  });

  it('the real core, through a quorum loss: the cache holders are granted from memory and every grant is shipped once; the ledger stays closed', async () => {
    const mutant = mutantNamed('fail-open-correctness');
    if (mutant === undefined) throw new Error('no mutant fail-open-correctness');
    const honestOnPins: typeof swarm = { ...swarm, run: (context) => runSwarm(context, undefined, mutant.pins) };
    const artifact = await runScenario(honestOnPins, undefined, '1', { yieldToHost, faults: toFaults(mutant.demonstration) });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.checks.find((c) => c.name === 'unprotected')?.detail).toMatch(/^ok: [1-9]\d* unprotected belief spans and [1-9]\d* spooled grants/);
    expect(artifact.metrics['unprotectedGrantsStored']).toBeGreaterThan(0);
  });

  it('catches the mutant that fails open for the ledger too: its grants from memory are a correctness class failing open', async () => {
    const artifact = await runScenario(swarm, 'fail-open-correctness', '1', { yieldToHost });
    const unprotected = artifact.checks.find((c) => c.name === 'unprotected');
    expect(unprotected?.ok).toBe(false);
    expect(new Set((unprotected?.violations as { kind: string }[]).map((v) => v.kind))).toContain('closed-class-unprotected');
    expect(artifact.asDeclared).toBe(true);
  });
});
