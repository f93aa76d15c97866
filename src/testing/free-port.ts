// Free loopback ports, asked of the OS (listen on port 0, read the port, close). Tests never use etcd's
// well-known ports: the Debian package may run a system etcd on 2379/2380 (src/testing/etcd-binary.ts).
import { createServer, type Server } from 'node:net';

export const LOOPBACK_HOST = '127.0.0.1';

function listenOnAnyPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: LOOPBACK_HOST, port: 0, exclusive: true }, () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * `count` distinct free ports. All listeners stay open until every port is known, so the OS cannot hand
 * out the same port twice; the ports are free again when this resolves. Another process may still take
 * one before the caller binds it: callers retry on "address already in use".
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnAnyPort());
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('a TCP listener reported no port');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}
