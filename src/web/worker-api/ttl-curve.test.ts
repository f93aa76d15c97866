// Issue 32: the CLI and the page price a TTL with one procedure (sim/planner/ttl-pricing.ts). Asked the
// same question, `lockstep ttl --sweep` (the compiled CLI, as a user runs it) and the page's ttlCurve
// give the same figures for every TTL of the sweep.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { yieldToHost } from '../../host-yield.js';
import { ttlCurve, type TtlPoint } from './ttl-curve.js';

const run = promisify(execFile);

async function cliSweep(seed: string): Promise<unknown[]> {
  const argv = ['bin/lockstep.mjs', 'ttl', 'examples/classes/ledger-writes.yaml', '--sessions', '30', '--runs', '1', '--pauses', 'gc', '--sweep', 'ttl=5..10', '--seed', seed, '--json'];
  const { stdout } = await run(process.execPath, argv);
  return (JSON.parse(stdout) as { sweep: unknown[] }).sweep;
}

/** The page's points as the CLI's JSON carries them: without the page's keepalive column, Infinity as null. */
function asCliJson(points: readonly TtlPoint[]): unknown[] {
  return JSON.parse(JSON.stringify(points.map(({ keepalivesPerSecond: _, ...price }) => price))) as unknown[];
}

describe('one TTL pricing for the CLI and the page', () => {
  it('gives identical prices for the same sweep, and different ones for another seed (the comparison can fail)', async () => {
    const request = { sessions: 30, ttlFromSeconds: 5, ttlToSeconds: 10, runs: 1, pauses: 'gc' as const, seed: 'agree' };
    const [cli, page, otherSeed] = await Promise.all([cliSweep('agree'), ttlCurve(request, yieldToHost), ttlCurve({ ...request, seed: 'other' }, yieldToHost)]);
    expect(cli).toHaveLength(2);
    expect(asCliJson(page.points)).toEqual(cli);
    // Negative control: a different seed draws other pauses and crashes, so the figures differ.
    expect(asCliJson(otherSeed.points)).not.toEqual(cli);
  });

  it('refuses what the procedure refuses, in the form field\'s words, before simulating', async () => {
    await expect(ttlCurve({ sessions: 10, ttlFromSeconds: 30, ttlToSeconds: 20, runs: 1, pauses: 'none' }, yieldToHost)).rejects.toThrow(/TTL to 20 must be .* at or above the sweep's start \(30\)/);
    await expect(ttlCurve({ sessions: 10, ttlFromSeconds: 5, ttlToSeconds: 5, runs: 1, pauses: 'none', minutesPerRun: 61 }, yieldToHost)).rejects.toThrow(/minutes per run 61 must be above 0 and at most 60/);
  });
});
