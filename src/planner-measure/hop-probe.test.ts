import { describe, expect, it } from 'vitest';
import { childrenOf } from '../testing/process-reaper.js';
import { hopCost, RigProbe } from './hop-probe.js';

describe("the rig's cost per message (issue 32)", () => {
  it('is the proxied round trip less the direct one, halved (a round trip crosses the proxy twice), never below 0', () => {
    const direct = Array.from({ length: 200 }, (_, i) => (i < 190 ? 0.1 : 1));
    const proxied = Array.from({ length: 200 }, (_, i) => (i < 190 ? 0.3 : 5));
    expect(hopCost(direct, proxied)).toEqual({ p50Ms: 0.1, p99Ms: 2, pings: 200, direct: { p50Ms: 0.1, p99Ms: 1 }, proxied: { p50Ms: 0.3, p99Ms: 5 } });
    expect(hopCost(proxied, direct)).toMatchObject({ p50Ms: 0, p99Ms: 0 }); // a proxy never makes a link faster
  });

  it('pings an echo process directly and through a proxy, keeps pairs only while collecting, and leaves no process behind', async () => {
    const before = childrenOf(process.pid);
    const probe = await RigProbe.start({ pings: 50, gapMs: 0 });
    await probe.pinger;
    const cost = await probe.stop();
    expect(childrenOf(process.pid)).toEqual(before); // the echo and ping processes are gone
    expect(cost?.pings).toBe(50);
    expect(cost!.p99Ms).toBeGreaterThanOrEqual(cost!.p50Ms);
    expect(cost!.direct.p50Ms).toBeGreaterThan(0);
    expect(cost!.proxied.p50Ms).toBeGreaterThan(0);
    const idle = await RigProbe.start({ pings: 10, gapMs: 0, collecting: false }); // negative control: the client loop never ran
    await idle.pinger;
    expect(await idle.stop()).toBeUndefined();
    expect(childrenOf(process.pid)).toEqual(before);
  });

  it('pings until stopped when given no count (during a measurement), and stop() ends it', async () => {
    const before = childrenOf(process.pid);
    const probe = await RigProbe.start({ gapMs: 1 });
    const cost = await waitForPairs(probe);
    expect(cost.pings).toBeGreaterThan(0);
    expect(childrenOf(process.pid)).toEqual(before);
  });
});

/** Stops the probe once it has printed some pairs (its pinger runs until killed). */
async function waitForPairs(probe: RigProbe): Promise<NonNullable<Awaited<ReturnType<RigProbe['stop']>>>> {
  for (let attempt = 0; attempt < 600; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (probe.pairs > 0) break;
  }
  const cost = await probe.stop();
  if (cost === undefined) throw new Error('no pairs in 30 s');
  return cost;
}
