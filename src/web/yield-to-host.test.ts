import { describe, expect, it } from 'vitest';
import { messageChannelYield } from './yield-to-host.js';

describe('messageChannelYield', () => {
  it('resolves only after every microtask queued before it, however deep the chain', async () => {
    const yieldToHost = messageChannelYield();
    const seen: number[] = [];
    // A chain of 50 awaits: no fixed number of Promise.resolve() hops would wait it out.
    const chain = async (): Promise<void> => {
      for (let i = 0; i < 50; i += 1) await Promise.resolve();
      seen.push(50);
    };
    void chain();
    await yieldToHost();
    expect(seen).toEqual([50]);
    yieldToHost.close();
  });

  it('resolves concurrent yields in the order they were asked for', async () => {
    const yieldToHost = messageChannelYield();
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => yieldToHost().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    yieldToHost.close();
  });

  it('drives the simulation kernel: a scenario runs to the same trace hash as with an immediate', async () => {
    const { runScenario } = await import('../../scenarios/runner.js');
    const { scenarioNamed } = await import('../../scenarios/registry.js');
    const yieldToHost = messageChannelYield();
    const viaChannel = await runScenario(scenarioNamed('pause-test'), 'fenced', '4', { yieldToHost });
    yieldToHost.close();
    const viaImmediate = await runScenario(scenarioNamed('pause-test'), 'fenced', '4', { yieldToHost: () => new Promise((done) => setImmediate(done)) });
    expect(viaChannel.traceHash).toBe(viaImmediate.traceHash);
    expect(viaChannel.checks.length).toBeGreaterThan(0);
  });

  it('refuses to yield once closed, saying how to get a new one', async () => {
    const yieldToHost = messageChannelYield();
    yieldToHost.close();
    await expect(yieldToHost()).rejects.toThrow(/messageChannelYield/);
  });
});
