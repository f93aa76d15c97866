import { describe, expect, it } from 'vitest';
import { main } from '../cli.js';

describe('lockstep ttl', () => {
  it('prices every class in examples/classes with a verdict, as JSON', async () => {
    const out: string[] = [];
    const cli = { out: (s: string) => out.push(s), err: () => undefined };
    const code = await main(['ttl', 'examples/classes/ledger-writes.yaml', 'examples/classes/cache-warmer.yaml', '--sessions', '3000', '--runs', '1', '--format', 'json'], cli);
    expect(code).toBe(0);
    const { classes } = JSON.parse(out.join('')) as { classes: Array<{ name: string; ttlSeconds: number; keepalivesPerSecond: number; livenessBoundMs: number; reacquireMsP99: number; verdict: { ok: boolean } }> };
    const ledger = classes.find((c) => c.name === 'ledger-writes')!;
    expect(ledger.keepalivesPerSecond).toBe(900);
    expect(ledger.reacquireMsP99).toBeLessThanOrEqual(ledger.livenessBoundMs);
    expect(classes.every((c) => c.verdict.ok)).toBe(true);
  });

  it('names the flag when --sessions is wrong', async () => {
    const err: string[] = [];
    expect(await main(['ttl', 'examples/classes/ledger-writes.yaml', '--sessions', 'lots'], { out: () => undefined, err: (s) => err.push(s) })).toBe(2);
    expect(err.join('')).toContain('--sessions');
  });
});
