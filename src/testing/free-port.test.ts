import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LOOPBACK_HOST, freePorts } from './free-port.js';

describe('freePorts', () => {
  it('returns distinct ports that can be bound at once', async () => {
    const ports = await freePorts(6);
    expect(new Set(ports).size).toBe(6);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: LOOPBACK_HOST, port: ports[0] }, resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
