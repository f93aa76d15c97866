// Issue 32: the CLI and the page price a quorum with one procedure (sim/planner/quorum-pricing.ts), and
// list the presets once. Asked the same question, `lockstep quorum --json` (the compiled CLI, as a user
// runs it) and the page's quorumPricing give the same prices, overall and per leader placement.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { QUORUM_PRESETS } from '../../../sim/planner/quorum-pricing.js';
import { yieldToHost } from '../../host-yield.js';
import { quorumPricing, type TopologyPricing } from './quorum-pricing.js';
import { presetTopology, TOPOLOGY_PRESETS } from './topology-presets.js';

const run = promisify(execFile);

async function cliPrices(topology: string, seed: string): Promise<unknown> {
  // The page has no bench profile: the same inputs are the simulator's defaults, whatever .lockstep-tmp holds.
  const { stdout } = await run(process.execPath, ['bin/lockstep.mjs', 'quorum', '--topology', topology, '--samples', '20', '--runs', '2', '--seed', seed, '--json', '--bench-profile', 'none']);
  const [priced] = (JSON.parse(stdout) as { topologies: Record<string, unknown>[] }).topologies;
  const { name, runs, samples, leaders, p50Ms, p99Ms, p999Ms, floorMs, quorumFloorMs, upperBoundMs, loadedUpperBoundMs, failoverUpperBoundMs, byLeader, throughputPerSecond } = priced!;
  return { name, runs, samples, leaders, p50Ms, p99Ms, p999Ms, floorMs, quorumFloorMs, upperBoundMs, loadedUpperBoundMs, failoverUpperBoundMs, byLeader, throughputPerSecond };
}

/** The page's prices in the CLI's JSON fields. */
function asCliJson(p: TopologyPricing): unknown {
  return {
    name: p.name,
    runs: p.runs,
    samples: p.simulated.samplesMs.length,
    leaders: p.leaders,
    p50Ms: p.simulated.p50Ms,
    p99Ms: p.simulated.p99Ms,
    p999Ms: p.simulated.p999Ms,
    floorMs: p.floorMs,
    quorumFloorMs: p.quorumFloorMs,
    upperBoundMs: p.upperBoundMs,
    loadedUpperBoundMs: p.loadedUpperBoundMs,
    failoverUpperBoundMs: p.failoverUpperBoundMs,
    byLeader: p.byLeader.map(({ simulated, ...l }) => ({ ...l, p50Ms: simulated?.p50Ms ?? null, p99Ms: simulated?.p99Ms ?? null })),
    throughputPerSecond: p.throughputPerSecond,
  };
}

describe('one quorum pricing for the CLI and the page', () => {
  it('gives identical prices for the same topology, runs, samples and seed; another seed differs (the comparison can fail)', async () => {
    const request = { topologies: ['stretched-3-region'], samplesPerRun: 20, runs: 2, seed: 'agree' };
    const [cli, [page], [otherSeed]] = await Promise.all([cliPrices('stretched-3-region', 'agree'), quorumPricing(request, yieldToHost), quorumPricing({ ...request, seed: 'other' }, yieldToHost)]);
    expect(asCliJson(page!)).toEqual(cli);
    expect(asCliJson(otherSeed!)).not.toEqual(cli);
  });

  it('bundles every preset the procedure lists, and each parses', () => {
    expect(TOPOLOGY_PRESETS).toEqual(QUORUM_PRESETS);
    for (const name of QUORUM_PRESETS) expect(presetTopology(name).name).toBe(name);
  });

  it('keeps the page\'s tighter bounds on top of the procedure\'s', async () => {
    await expect(quorumPricing({ topologies: ['regional-3'], samplesPerRun: 5_000 }, yieldToHost)).rejects.toThrow(/samples per run 5000 must be a whole number from 10 to 2000/);
    await expect(quorumPricing({ topologies: ['regional-3'], samplesPerRun: 20, runs: 0 }, yieldToHost)).rejects.toThrow(/runs 0 must be a whole number from 1 to 50/);
  });
});
