import { describe, expect, it } from 'vitest';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { Network, type Delivery, type NetworkOptions } from './network.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

interface Ping {
  readonly type: 'ping';
  readonly n: number;
}

function world(options: NetworkOptions = {}, seed = 'net-test') {
  const kernel = new Kernel({ seed, yieldToHost, trace: { keepRecords: true } });
  const network = new Network<Ping>(kernel, options);
  const [a, b, c] = ['a', 'b', 'c'].map((name) => new SimProcess(kernel, { name, region: name === 'c' ? 'far' : 'near' })) as [SimProcess, SimProcess, SimProcess];
  const received = new Map<string, string[]>();
  for (const process of [a, b, c]) {
    received.set(process.name, []);
    network.listen(process, ({ from, payload }: Delivery<Ping>) => received.get(process.name)?.push(`${from}:${payload.n}@${kernel.now()}`));
  }
  const inbox = (name: string): string[] => received.get(name) ?? [];
  const drops = (): string[] => kernel.trace.records().filter((r) => r.kind === 'net.drop').map((r) => String(r.fields['reason']));
  return { kernel, network, a, b, c, inbox, drops };
}

describe('Network latency', () => {
  it('delivers after the link latency plus extra delay, per link over per region pair over defaults', async () => {
    const { kernel, network, a, b, c, inbox } = world({ defaults: { latency: { kind: 'constant', ms: 1 } } });
    network.setRegionPair('near', 'far', { latency: { kind: 'constant', ms: 40 } });
    network.setLink('b', 'a', { extraDelayMs: 5 });
    network.send(a, b, { type: 'ping', n: 1 });
    network.send(a, c, { type: 'ping', n: 2 });
    network.send(c, a, { type: 'ping', n: 3 });
    network.send(b, a, { type: 'ping', n: 4 });
    await kernel.runUntilQuiescent();
    expect(inbox('b')).toEqual(['a:1@1']);
    expect(inbox('c')).toEqual(['a:2@40']);
    expect(inbox('a')).toEqual(['b:4@6', 'c:3@40']);
  });

  it('lets messages overtake on an unordered link, never on an ordered one', async () => {
    const latency = { kind: 'uniform', minMs: 1, maxMs: 100 } as const;
    const run = async (ordered: boolean): Promise<number[]> => {
      const { kernel, network, a, b, inbox } = world({ defaults: { latency, ordered } });
      for (let n = 0; n < 50; n++) kernel.schedule(n * 0.5, () => network.send(a, b, { type: 'ping', n }));
      await kernel.runUntilQuiescent();
      return inbox('b').map((entry) => Number(entry.split(':')[1]?.split('@')[0]));
    };
    const sorted = Array.from({ length: 50 }, (_, n) => n);
    expect(await run(true)).toEqual(sorted);
    const unordered = await run(false);
    expect(unordered).not.toEqual(sorted);
    expect([...unordered].sort((x, y) => x - y)).toEqual(sorted);
  });

  it("draws from each link's own stream: traffic on one link never changes another's latencies", async () => {
    const latency = { kind: 'lognormal', medianMs: 1, p99Ms: 10 } as const;
    const arrivals = async (withOtherTraffic: boolean): Promise<string[]> => {
      const { kernel, network, a, b, c, inbox } = world({ defaults: { latency } });
      for (let n = 0; n < 20; n++) {
        if (withOtherTraffic) network.send(c, b, { type: 'ping', n });
        network.send(a, b, { type: 'ping', n });
      }
      await kernel.runUntilQuiescent();
      return inbox('b').filter((entry) => entry.startsWith('a:'));
    };
    expect(await arrivals(true)).toEqual(await arrivals(false));
  });
});

describe('Network faults', () => {
  it('drops and duplicates at about the configured rates', async () => {
    const { kernel, network, a, b, inbox, drops } = world({ defaults: { dropProbability: 0.1, duplicateProbability: 0.05 } });
    const sent = 10_000;
    for (let n = 0; n < sent; n++) network.send(a, b, { type: 'ping', n });
    await kernel.runUntilQuiescent();
    const dropped = drops().length;
    const duplicates = kernel.trace.records().filter((r) => r.kind === 'net.duplicate').length;
    // Expected 1000 drops (sd 30) and 450 duplicates (sd 21): bounds at about 6 sd, fixed seed.
    expect(dropped).toBeGreaterThan(820);
    expect(dropped).toBeLessThan(1180);
    expect(duplicates).toBeGreaterThan(330);
    expect(duplicates).toBeLessThan(570);
    expect(inbox('b').length).toBe(sent - dropped + duplicates);
    expect(network.inFlight).toBe(0);
  });

  it('cuts both ways with a symmetric partition, one way with a one-way partition, and heals at its time', async () => {
    const { kernel, network, a, b, c, inbox, drops } = world({ defaults: { latency: { kind: 'constant', ms: 1 } } });
    network.partition({ from: ['a'], to: ['b', 'c'], healAtMs: 10 });
    const oneWay = network.partition({ from: ['b'], to: ['c'], direction: 'one-way' });
    network.send(a, b, { type: 'ping', n: 1 });
    network.send(c, a, { type: 'ping', n: 2 });
    network.send(b, c, { type: 'ping', n: 3 });
    network.send(c, b, { type: 'ping', n: 4 });
    expect(network.isCut('b', 'c')).toBe(true);
    expect(network.isCut('c', 'b')).toBe(false);
    kernel.schedule(10, () => network.send(a, b, { type: 'ping', n: 5 }));
    kernel.schedule(11, () => network.heal(oneWay));
    kernel.schedule(11, () => network.send(b, c, { type: 'ping', n: 6 }));
    await kernel.runUntilQuiescent();
    expect(drops()).toEqual(['partition', 'partition', 'partition']);
    expect(inbox('b')).toEqual(['c:4@1', 'a:5@11']);
    expect(inbox('c')).toEqual(['b:6@12']);
    expect(inbox('a')).toEqual([]);
  });

  it('drops a message in flight when a partition starts before it arrives', async () => {
    const { kernel, network, a, b, inbox, drops } = world({ defaults: { latency: { kind: 'constant', ms: 10 } } });
    network.send(a, b, { type: 'ping', n: 1 });
    kernel.schedule(5, () => network.partition({ from: ['a'], to: ['b'], healAtMs: 20 }));
    await kernel.runUntilQuiescent();
    expect(inbox('b')).toEqual([]);
    expect(drops()).toEqual(['partition']);
  });

  it('holds deliveries to a paused process; drops them to a crashed or restarted one and from a crashed sender', async () => {
    const { kernel, network, a, b, inbox, drops } = world({ defaults: { latency: { kind: 'constant', ms: 1 } } });
    kernel.schedule(0, () => b.pause());
    network.send(a, b, { type: 'ping', n: 1 }); // arrives at 1, held until 5
    kernel.schedule(5, () => b.resume());
    kernel.schedule(10, () => network.send(a, b, { type: 'ping', n: 2 })); // arrives at 11: b crashed at 10.5
    kernel.schedule(10.5, () => b.crash());
    kernel.schedule(12, () => network.send(a, b, { type: 'ping', n: 3 }));
    kernel.schedule(12.5, () => b.restart()); // in flight across a restart: connection reset
    kernel.schedule(14, () => network.send(a, b, { type: 'ping', n: 4 })); // restarted b has no listener yet
    kernel.schedule(16, () => {
      network.listen(b, ({ payload }: Delivery<Ping>) => inbox('b').push(`new incarnation got ${payload.n}`));
      network.send(a, b, { type: 'ping', n: 5 });
    });
    kernel.schedule(20, () => a.crash());
    kernel.schedule(21, () => network.send(a, b, { type: 'ping', n: 6 }));
    await kernel.runUntilQuiescent();
    expect(inbox('b')).toEqual(['a:1@5', 'new incarnation got 5']);
    expect(drops()).toEqual(['crashed', 'restarted', 'no-listener', 'sender-crashed']);
    const held = kernel.trace.records().filter((r) => r.kind === 'net.held');
    expect(held.map((r) => r.timeMs)).toEqual([1]);
  });

  it('adopts async handlers: their continuations run before the next event, and their failures fail the run', async () => {
    const { kernel, network, a, b } = world({ defaults: { latency: { kind: 'constant', ms: 1 } } });
    const log: string[] = [];
    const server = new SimProcess(kernel, { name: 'server' });
    network.listen(server, async ({ payload }: Delivery<Ping>) => {
      await Promise.resolve();
      await Promise.resolve();
      log.push(`handled ${payload.n} at ${kernel.now()}`);
      if (payload.n === 2) throw new Error('handler failed');
    });
    network.send(a, server, { type: 'ping', n: 1 });
    kernel.schedule(1, () => log.push('event at 1'));
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['handled 1 at 1', 'event at 1']);
    network.send(b, server, { type: 'ping', n: 2 });
    await expect(kernel.runUntilQuiescent()).rejects.toThrow('handler failed');
  });

  it('traces payloads when asked, and validates link settings by name', () => {
    const { kernel, network, a, b } = world({ tracePayloads: true });
    network.send(a, b, { type: 'ping', n: 7 });
    expect(kernel.trace.records()[0]?.fields).toEqual({ id: 0, to: 'b', type: 'ping', payload: { type: 'ping', n: 7 } });
    network.setLink('a', 'b', { dropProbability: 2 });
    expect(() => network.send(a, b, { type: 'ping', n: 8 })).toThrow('net link a->b: dropProbability must be in [0, 1], got 2');
    expect(() => network.listen(a, () => {})).toThrow('already listens');
  });
});
