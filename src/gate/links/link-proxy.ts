// A loopback TCP proxy in front of one process's port (issue 15: "partitions and leader isolation by
// routing every peer link and client link through loopback TCP proxies that lockstep runs"; the kernel
// here has no netem). Each accepted connection knows its two ends by name: the destination is the
// process behind the proxy, the source is fixed for a client link (one proxy per dialer and target) or
// read from the first request head for a peer link (peer-identity.ts). Bytes in each direction pass,
// wait (a slow link, order kept) or are discarded (a cut) as LinkRules says at the moment they arrive.
// A connection that lost bytes is reset when a rule heals: a stream cut mid-frame must not resume with
// a hole in it (the dialer reconnects, as it would after a real partition outlasted its timeouts).
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LinkRules } from './link-rules.js';
import { readRequestHead } from './peer-identity.js';

export const LOOPBACK = '127.0.0.1';

/** Names the source of a connection from its first request head, or undefined (then it passes untouched). */
export type SourceOf = (head: { readonly peerUrls: readonly string[]; readonly serverFrom: string | undefined }) => string | undefined;

export interface LinkProxyOptions {
  readonly rules: LinkRules;
  /** The process behind the proxy. */
  readonly destination: string;
  readonly targetPort: number;
  /** A client link's dialer, or how to tell a peer link's dialer from its first request. */
  readonly source: string | SourceOf;
}

interface Pipe {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Set once bytes were discarded: reset at the next heal. */
  lostBytes: boolean;
}

export class LinkProxy {
  private readonly pipes = new Set<Pipe>();
  private readonly detachHeal: () => void;

  private constructor(
    private readonly server: Server,
    private readonly options: LinkProxyOptions,
    readonly port: number,
  ) {
    this.detachHeal = options.rules.onHeal(() => this.resetLossy());
  }

  static async start(options: LinkProxyOptions): Promise<LinkProxy> {
    const server = createServer({ noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, LOOPBACK, () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('a link proxy listens on a TCP port');
    const proxy = new LinkProxy(server, options, address.port);
    server.on('connection', (client: Socket) => proxy.accept(client));
    return proxy;
  }

  get url(): string {
    return `http://${LOOPBACK}:${this.port}`;
  }

  /** Open connections (for tests and the report). */
  get connections(): number {
    return this.pipes.size;
  }

  /** Resets every connection: what the dialer sees when the process behind it is killed. */
  resetAll(): void {
    for (const pipe of this.pipes) destroy(pipe);
  }

  get destination(): string {
    return this.options.destination;
  }

  /**
   * The process behind the proxy is dead (kill -9): its connections reset, and the proxy stops listening,
   * so a dialer's connect is refused as a dead host's port refuses it. Without this a proxy would accept
   * and then reset, which a client reads as a call that was sent and may have happened (indeterminate),
   * not as a process that is not there (measured: a killed arbiter's keys were answered indeterminate,
   * every 20-50 ms, for the whole 3-4 s until its restart, with no failover to the other arbiter).
   */
  async down(): Promise<void> {
    this.resetAll();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Listens again on the same port (the process behind it was restarted). */
  async up(): Promise<void> {
    if (this.server.listening) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, LOOPBACK, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    this.detachHeal();
    this.resetAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const upstream = createConnection({ host: LOOPBACK, port: this.options.targetPort, noDelay: true });
    const pipe: Pipe = { client, upstream, lostBytes: false };
    this.pipes.add(pipe);
    // One side's end passes to the other as it came (issue 32): an error (the upstream's connect refused,
    // a reset) resets the other side, as a dead host's port refuses or resets a connection; a plain close
    // (FIN, which a killed process's kernel also sends) closes it.
    const endBy = (reset: Socket | undefined) => (): void => {
      if (!this.pipes.delete(pipe)) return;
      if (reset !== undefined && !reset.destroyed) reset.resetAndDestroy();
      destroy(pipe);
    };
    client.on('error', endBy(upstream)).on('close', endBy(undefined));
    upstream.on('error', endBy(client)).on('close', endBy(undefined));
    const known = typeof this.options.source === 'string' ? this.options.source : undefined;
    let source: string | undefined = known;
    let identified = known !== undefined;
    let head = Buffer.alloc(0);
    const toTarget = this.direction(pipe, upstream, () => source, () => this.options.destination);
    const toDialer = this.direction(pipe, client, () => this.options.destination, () => source);
    client.on('data', (chunk: Buffer) => {
      if (identified) return toTarget(chunk);
      // Until the head names the sender, its bytes are held: none may slip past a cut it is under.
      head = Buffer.concat([head, chunk]);
      const reading = readRequestHead(head);
      if (!reading.complete) return;
      identified = true;
      source = (this.options.source as SourceOf)(reading);
      toTarget(head);
    });
    upstream.on('data', toDialer);
  }

  /** A forwarder for one direction: each chunk passes, waits behind the earlier ones, or is discarded. */
  private direction(pipe: Pipe, out: Socket, from: () => string | undefined, to: () => string | undefined): (chunk: Buffer) => void {
    let releaseAtMs = 0; // when the last held chunk goes out: later ones never overtake it
    return (chunk) => {
      const source = from();
      const destination = to();
      const mode = source === undefined || destination === undefined ? undefined : this.options.rules.modeFor(source, destination);
      if (mode?.drop === true) {
        pipe.lostBytes = true;
        return;
      }
      const nowMs = performance.now(); // monotonic: a clock step of the gate's host must not reorder or hold bytes
      const atMs = Math.max(nowMs + (mode?.delayMs ?? 0), releaseAtMs);
      if (atMs <= nowMs) {
        out.write(chunk);
        return;
      }
      releaseAtMs = atMs;
      setTimeout(() => {
        if (!out.destroyed) out.write(chunk);
      }, atMs - nowMs);
    };
  }

  private resetLossy(): void {
    for (const pipe of this.pipes) if (pipe.lostBytes) destroy(pipe);
  }
}

function destroy(pipe: Pipe): void {
  pipe.client.destroy();
  pipe.upstream.destroy();
}
