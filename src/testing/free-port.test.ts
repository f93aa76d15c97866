import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOPBACK_HOST, PortBlock, blockIdOf, blockRange, freePorts, parseEphemeralRange } from './free-port.js';

const EPHEMERAL = parseEphemeralRange(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'));
/** This worker's own block: no other test file running at once walks it. */
const OWN_BLOCK = blockIdOf(process.env, process.pid);

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: LOOPBACK_HOST, port, exclusive: true }, () => {
      servers.push(server);
      resolve(server);
    });
  });
}

describe('freePorts', () => {
  it('returns distinct ports, outside the ephemeral range, that can all be bound at once', async () => {
    const ports = await freePorts(6);
    expect(new Set(ports).size).toBe(6);
    for (const port of ports) expect(port < EPHEMERAL.first || port > EPHEMERAL.last).toBe(true);
    await Promise.all(ports.map(listenOn));
  });

  it('hands out ports round-robin: the ports just handed out come back last', async () => {
    const block = new PortBlock(blockRange(OWN_BLOCK, EPHEMERAL));
    const first = await block.take(3);
    const second = await block.take(3);
    expect(second.filter((port) => first.includes(port))).toEqual([]);
    expect(Math.min(...second)).toBeGreaterThan(Math.max(...first));
  });

  it('skips a port something listens on; the control: the same block hands it out when it is free', async () => {
    const range = blockRange(OWN_BLOCK, EPHEMERAL);
    const [control] = await new PortBlock(range).take(1);
    expect(control).toBe(range.first);
    await listenOn(range.first);
    const ports = await new PortBlock(range).take(2);
    expect(ports).toEqual([range.first + 1, range.first + 2]);
  });

  it('gives two workers disjoint blocks, and a process without vitest a block of neither', async () => {
    const [one, two, cli] = [blockIdOf({ VITEST_POOL_ID: '1' }, 123), blockIdOf({ VITEST_POOL_ID: '2' }, 123), blockIdOf({}, 123)];
    expect(new Set([one, two, cli]).size).toBe(3);
    const [a, b] = [new PortBlock(blockRange(one, EPHEMERAL)), new PortBlock(blockRange(two, EPHEMERAL))];
    const [fromA, fromB] = await Promise.all([a.take(8), b.take(8)]);
    expect(fromA.filter((port) => fromB.includes(port))).toEqual([]);
    const ranges = [a.range, b.range, blockRange(cli, EPHEMERAL)];
    for (const range of ranges) expect(range.last < EPHEMERAL.first || range.first > EPHEMERAL.last).toBe(true);
    expect(ranges[0]!.last < ranges[1]!.first || ranges[1]!.last < ranges[0]!.first).toBe(true);
  });

  it('refuses a count beyond the block and reads a malformed range file as the default', async () => {
    await expect(freePorts(0)).rejects.toThrow(/ask for 1\.\./);
    await expect(freePorts(100_000)).rejects.toThrow(/ask for 1\.\./);
    expect(parseEphemeralRange('garbage')).toEqual({ first: 32768, last: 60999 });
    expect(parseEphemeralRange('1024\t65535\n')).toEqual({ first: 1024, last: 65535 });
    expect(() => blockRange(0, { first: 1024, last: 65535 })).toThrow(/too few ports/);
  });
});
