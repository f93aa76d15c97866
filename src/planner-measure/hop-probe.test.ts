import { describe, expect, it } from 'vitest';
import { childrenOf } from '../testing/process-reaper.js';
import { hopCost, probeRigLinkCost } from './hop-probe.js';

describe("the rig's cost per message (issue 32)", () => {
  it('is the proxied round trip less the direct one, halved (a round trip crosses the proxy twice), never below 0', () => {
    const direct = Array.from({ length: 200 }, (_, i) => (i < 190 ? 0.1 : 1));
    const proxied = Array.from({ length: 200 }, (_, i) => (i < 190 ? 0.3 : 5));
    expect(hopCost(direct, proxied)).toEqual({ p50Ms: 0.1, p99Ms: 2, pings: 200, direct: { p50Ms: 0.1, p99Ms: 1 }, proxied: { p50Ms: 0.3, p99Ms: 5 } });
    expect(hopCost(proxied, direct)).toMatchObject({ p50Ms: 0, p99Ms: 0 }); // a proxy never makes a link faster
  });

  it('pings an echo process directly and through a proxy, and leaves no process behind', async () => {
    const before = childrenOf(process.pid);
    const probe = await probeRigLinkCost(50);
    expect(childrenOf(process.pid)).toEqual(before); // the echo and ping processes are gone
    expect(probe.pings).toBe(50);
    expect(probe.p99Ms).toBeGreaterThanOrEqual(probe.p50Ms);
    expect(probe.direct.p50Ms).toBeGreaterThan(0);
    expect(probe.proxied.p50Ms).toBeGreaterThan(0);
  });
});
