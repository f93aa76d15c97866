// The link proxy against a plain TCP echo server: bytes pass, wait in order, or vanish as the rules say,
// per direction and per named source; a heal resets the connections that lost bytes.
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOPBACK, LinkProxy } from './link-proxy.js';
import { LinkMesh } from './link-mesh.js';
import { LinkRules } from './link-rules.js';
import { freePorts } from '../../testing/free-port.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An echo server that also remembers every byte it received. */
async function echoServer(): Promise<{ port: number; received: () => string }> {
  let received = '';
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => {
      received += chunk.toString();
      socket.write(chunk);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, () => resolve()));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, received: () => received };
}

/** A server that answers "reset" by resetting the connection (RST) and anything else by closing it (FIN). */
async function endingServer(): Promise<{ port: number }> {
  const server: Server = createServer((socket) => {
    socket.on('data', (chunk) => (chunk.toString() === 'reset' ? socket.resetAndDestroy() : socket.end()));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, () => resolve()));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port };
}

interface Dialed {
  readonly socket: Socket;
  echoed: () => string;
  closed: () => boolean;
  /** The error that ended the connection (ECONNRESET for a reset), or undefined for a clean close. */
  errorCode: () => string | undefined;
}

async function dial(port: number): Promise<Dialed> {
  const socket = createConnection({ host: LOOPBACK, port });
  let echoed = '';
  let closed = false;
  let errorCode: string | undefined;
  socket.on('data', (chunk) => (echoed += chunk.toString()));
  socket.on('close', () => (closed = true));
  socket.on('error', (error: NodeJS.ErrnoException) => (errorCode = error.code ?? 'error'));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  closers.push(async () => void socket.destroy());
  return { socket, echoed: () => echoed, closed: () => closed, errorCode: () => errorCode };
}

async function until(condition: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const settle = (ms = 150): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function proxyFor(rules: LinkRules, source: string, destination: string) {
  const echo = await echoServer();
  const proxy = await LinkProxy.start({ rules, destination, targetPort: echo.port, source });
  closers.push(() => proxy.close());
  return { echo, proxy };
}

describe('LinkProxy', () => {
  it('passes bytes both ways while no rule names the link', async () => {
    const rules = new LinkRules();
    const { proxy } = await proxyFor(rules, 'c1', 'a1');
    const client = await dial(proxy.port);
    client.socket.write('hello');
    await until(() => client.echoed() === 'hello', 'the echo');
  });

  it('down resets its connections and refuses new ones, as a dead host\'s port does; up listens again on the same port', async () => {
    const rules = new LinkRules();
    const { proxy } = await proxyFor(rules, 'c1', 'a1');
    const before = await dial(proxy.port);
    await proxy.down();
    await until(() => before.closed(), 'the reset');
    const refused = await new Promise<string>((resolve) => {
      const socket = createConnection({ host: LOOPBACK, port: proxy.port });
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    await proxy.up();
    const after = await dial(proxy.port);
    after.socket.write('again');
    await until(() => after.echoed() === 'again', 'the echo after up');
  });

  // Issue 32: the proxy is the gate's model of the network, so it passes a death on as the kernel would.
  it('an upstream that refuses or resets resets the dialer\'s connection; a clean close stays a clean close', async () => {
    const rules = new LinkRules();
    const [deadPort] = await freePorts(1); // nothing listens: a killed process's port
    const dead = await LinkProxy.start({ rules, destination: 'm1', targetPort: deadPort as number, source: 'a1' });
    closers.push(() => dead.close());
    const refused = await dial(dead.port);
    await until(() => refused.closed(), 'the refused upstream passed on');
    expect(refused.errorCode()).toBe('ECONNRESET');

    const ends = await endingServer();
    const proxy = await LinkProxy.start({ rules, destination: 'm1', targetPort: ends.port, source: 'a1' });
    closers.push(() => proxy.close());
    const reset = await dial(proxy.port);
    reset.socket.write('reset');
    await until(() => reset.closed(), 'the upstream reset passed on');
    expect(reset.errorCode()).toBe('ECONNRESET');
    const ended = await dial(proxy.port); // the control: a process that closes its socket sends FIN, not RST
    ended.socket.write('end');
    await until(() => ended.closed(), 'the upstream close passed on');
    expect(ended.errorCode()).toBeUndefined();
  });

  it('a one-way cut drops only its direction, and the heal resets the connection that lost bytes', async () => {
    const rules = new LinkRules();
    const { echo, proxy } = await proxyFor(rules, 'c1', 'a1');
    const client = await dial(proxy.port);
    const heal = rules.cut(['a1'], ['c1'], true); // the answers are cut; the requests still arrive
    client.socket.write('ping');
    await until(() => echo.received() === 'ping', 'the request at the server');
    await settle();
    expect(client.echoed()).toBe('');
    expect(client.closed()).toBe(false); // a cut is silence, not a reset
    heal();
    await until(() => client.closed(), 'the reset after the heal');
    const again = await dial(proxy.port);
    again.socket.write('pong');
    await until(() => again.echoed() === 'pong', 'an echo on a new connection');
  });

  it('a slow link holds bytes that long and keeps their order', async () => {
    const rules = new LinkRules();
    const { proxy } = await proxyFor(rules, 'c1', 'a1');
    const client = await dial(proxy.port);
    rules.slow(['c1'], ['a1'], 300, true);
    const sentAt = Date.now();
    client.socket.write('a');
    await settle(20);
    client.socket.write('b');
    await until(() => client.echoed() === 'ab', 'both echoes, in order');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(290); // a functional check of the hold, not a speed goal
  });

  it('names a peer link by its request head, and a cut of another pair leaves it alone', async () => {
    const mesh = new LinkMesh();
    closers.push(() => mesh.close());
    const m2 = await echoServer();
    const urlOfM2 = await mesh.addPeer('m2', m2.port);
    const urlOfM1 = await mesh.addPeer('m1', (await echoServer()).port);
    const urlOfM3 = await mesh.addPeer('m3', (await echoServer()).port);
    const port = Number(new URL(urlOfM2).port);
    const request = (from: string) => `POST /raft HTTP/1.1\r\nHost: x\r\nX-PeerURLs: ${from}\r\nContent-Length: 0\r\n\r\n`;
    mesh.partition(['m1'], ['m2'], true);
    const fromM1 = await dial(port);
    const fromM3 = await dial(port);
    fromM1.socket.write(request(urlOfM1));
    fromM3.socket.write(request(urlOfM3));
    await until(() => fromM3.echoed() === request(urlOfM3), "m3's request through");
    await settle();
    expect(fromM1.echoed()).toBe('');
    expect(m2.received()).toBe(request(urlOfM3)); // m1's bytes never reached m2
  });
});
