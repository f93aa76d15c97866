// The server's record of refused TLS handshakes (issue 29): a client that cannot authenticate learns why
// from its own error (src/client/tls-probe.ts), and the operator learns it from serve's log, once per peer address a
// minute so that a client retrying in a loop cannot flood the log. Only the address, the reason (the
// TLS error's code) and the certificate's subject when one was read: never the rest of its contents.
import type { Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket } from 'node:tls';

export interface HandshakeRefusal {
  /** The peer's IP address (without its port: each retry has a new one). */
  readonly peer: string;
  readonly reason: string;
  /** The client certificate's subject, when the caller knows it (node no longer has it after a refusal). */
  readonly subject?: string;
  /** Refusals of this peer not logged since its last line. */
  readonly suppressed: number;
}

export interface HandshakeRefusalsOptions {
  readonly log: (refusal: HandshakeRefusal) => void;
  readonly nowMs: () => number;
  /** Default one minute. */
  readonly windowMs?: number;
  /** Peers remembered at most; past it the oldest are forgotten (a caller controls how many addresses it has). */
  readonly maxPeers?: number;
}

const WINDOW_MS = 60_000;
const MAX_PEERS = 4096;
const MAX_TEXT = 200;

export class HandshakeRefusals {
  private readonly peers = new Map<string, { loggedAtMs: number; suppressed: number }>();

  constructor(private readonly options: HandshakeRefusalsOptions) {}

  /** Records one refused handshake; logs it unless this peer was logged less than a window ago. */
  refused(peer: string, reason: string, subject?: string): void {
    const now = this.options.nowMs();
    const seen = this.peers.get(peer);
    if (seen !== undefined && now - seen.loggedAtMs < (this.options.windowMs ?? WINDOW_MS)) {
      seen.suppressed += 1;
      return;
    }
    this.peers.delete(peer); // re-inserted last: the map's order is the order of the last line
    while (this.peers.size >= (this.options.maxPeers ?? MAX_PEERS)) this.peers.delete(this.peers.keys().next().value as string);
    this.peers.set(peer, { loggedAtMs: now, suppressed: 0 });
    this.options.log({ peer: peer.slice(0, MAX_TEXT), reason: reason.slice(0, MAX_TEXT), ...(subject === undefined ? {} : { subject: subject.slice(0, MAX_TEXT) }), suppressed: seen?.suppressed ?? 0 });
  }

  /**
   * Watches a TLS server's refused handshakes. With rejectUnauthorized node destroys a socket whose client
   * certificate fails verification, keeping the reason in authorizationError (the error itself then says
   * only ECONNRESET); the address is gone with the TLS socket's handle, so it is read from the TCP socket
   * when it connects and found again through the TLS socket's _parent (node's wrapped socket).
   */
  watch(server: TlsServer): void {
    const addresses = new WeakMap<object, string>();
    server.on('connection', (raw: Socket) => {
      if (raw.remoteAddress !== undefined) addresses.set(raw, raw.remoteAddress);
    });
    server.on('tlsClientError', (error: Error & { code?: string }, socket: TLSSocket) => {
      const raw = (socket as TLSSocket & { _parent?: object })._parent;
      const peer = (raw === undefined ? undefined : addresses.get(raw)) ?? socket.remoteAddress ?? 'unknown';
      const why = socket.authorizationError;
      this.refused(peer, why === undefined ? (error.code ?? error.message) : String(why));
    });
  }
}
