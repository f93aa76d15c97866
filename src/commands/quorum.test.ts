import { describe, expect, it } from 'vitest';
import { main } from '../cli.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

describe('lockstep quorum', () => {
  it('stretched-3-region: the simulated p99 lies between the analytic floor and bound, around ADR-08\'s 150 ms', async () => {
    const { io: cli, out } = io();
    expect(await main(['quorum', '--topology', 'stretched-3-region', '--samples', '150', '--json'], cli)).toBe(0);
    const [t] = (JSON.parse(out.join('')) as { topologies: Array<{ p50Ms: number; p99Ms: number; floorMs: number; upperBoundMs: number; regionLoss: { cases: unknown[] } }> }).topologies;
    expect(t!.p99Ms).toBeGreaterThan(t!.floorMs);
    expect(t!.p99Ms).toBeLessThanOrEqual(t!.upperBoundMs);
    expect(t!.p99Ms).toBeGreaterThan(100);
    expect(t!.p99Ms).toBeLessThan(250);
    expect(t!.regionLoss.cases.length).toBeGreaterThan(0);
  });

  it('a bad topology file is refused with the field named', async () => {
    const { io: cli, err } = io();
    expect(await main(['quorum', '--topology', 'no-such-topology'], cli)).toBe(2);
    expect(err.join('')).toContain('--topology');
  });
});
