// ADR-19: with mTLS the caller is the SPIFFE ID in the client certificate's URI SAN. A certificate that
// carries no spiffe:// URI, or more than one, names no single workload and is refused. Without TLS (a
// loopback development server, `lockstep serve` warns) the identity is whatever the caller says in a
// header, and is marked unauthenticated so it can never act as an operator (ADR-20).
import type { TLSSocket } from 'node:tls';
import { LockError } from '../../core/lock-error.js';
import { type Caller, authenticated, unauthenticated } from '../../core/ports/caller.js';
import { XFCC_HEADER, callerFromXfcc } from './xfcc.js';

/** The header an unauthenticated (no TLS) caller names itself in. */
export const IDENTITY_HEADER = 'lockstep-identity';

/**
 * The URIs of a subjectAltName string as node formats it: `URI:spiffe://a, DNS:b`, an entry that holds
 * a comma or a quote written as a JSON string (`URI:"spiffe://a,b"`).
 */
export function sanUris(subjectAltName: string | undefined): string[] {
  if (subjectAltName === undefined || subjectAltName === '') return [];
  const uris: string[] = [];
  const entry = /(?:^|,\s*)([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)/g;
  for (const match of subjectAltName.matchAll(entry)) {
    const kind = match[1] ?? '';
    const raw = match[2] ?? '';
    if (kind.trim() !== 'URI') continue;
    uris.push(raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
  }
  return uris;
}

export function spiffeIdOf(subjectAltName: string | undefined): string {
  const spiffe = sanUris(subjectAltName).filter((uri) => uri.toLowerCase().startsWith('spiffe://'));
  if (spiffe.length !== 1) {
    throw new LockError(
      'unauthenticated',
      `the client certificate carries ${spiffe.length === 0 ? 'no spiffe:// URI' : `${spiffe.length} spiffe:// URIs (${spiffe.join(', ').slice(0, 200)})`} in its subjectAltName; a caller is exactly one SPIFFE ID (ADR-19): issue the workload a certificate with one URI SAN such as spiffe://example.org/ns/payments/sa/ledger-writer`,
    );
  }
  return spiffe[0] as string;
}

/** Proxies whose x-forwarded-client-cert names the caller (serve --trusted-proxy), and that header. */
export interface Forwarded {
  readonly trustedProxies: ReadonlySet<string>;
  readonly xfcc: string | string[] | undefined;
}

const NOT_FORWARDED: Forwarded = { trustedProxies: new Set(), xfcc: undefined };

/** SPIFFE IDs of connections already verified: a connection's certificate never changes (issue 30: per call, it was parsed again). */
const verifiedPeers = new WeakMap<object, string>();

function peerIdOf(socket: TLSSocket): string {
  const known = verifiedPeers.get(socket);
  if (known !== undefined) return known;
  const peer = socket.getPeerCertificate?.();
  if (peer === undefined || peer === null || Object.keys(peer).length === 0 || socket.authorized !== true) {
    throw new LockError('unauthenticated', 'the connection presented no client certificate the server trusts; connect with --tls-cert and --tls-key signed by the server\'s --client-ca');
  }
  const peerId = spiffeIdOf(peer.subjectaltname);
  verifiedPeers.set(socket, peerId);
  return peerId;
}

/**
 * The caller of a request on `socket`: from its verified client certificate; behind a trusted proxy (its
 * certificate's SPIFFE ID is one of `forwarded.trustedProxies`), from the proxy's x-forwarded-client-cert
 * (xfcc.ts); without TLS, from the identity header. The forwarded header from any other peer is refused,
 * never believed: it is a claim anyone can write.
 */
export function callerOf(socket: unknown, identityHeader: string | string[] | undefined, tls: boolean, forwarded: Forwarded = NOT_FORWARDED): Caller {
  if (tls) {
    const peerId = peerIdOf(socket as TLSSocket);
    if (forwarded.trustedProxies.has(peerId)) {
      if (Array.isArray(forwarded.xfcc)) throw new LockError('unauthenticated', `the ${XFCC_HEADER} header came ${forwarded.xfcc.length} times; the trusted proxy must send one`);
      return authenticated(callerFromXfcc(forwarded.xfcc, peerId));
    }
    if (forwarded.xfcc !== undefined) {
      throw new LockError('unauthenticated', `${peerId} sent an ${XFCC_HEADER} header but is not a trusted proxy (lockstep serve --trusted-proxy): the header is refused, never believed; call without it, or through the proxy`);
    }
    return authenticated(peerId);
  }
  if (forwarded.xfcc !== undefined) throw new LockError('unauthenticated', `the ${XFCC_HEADER} header is taken only from a trusted proxy over mTLS; this server has no TLS`);
  const named = Array.isArray(identityHeader) ? identityHeader[0] : identityHeader;
  if (named === undefined || named === '') {
    throw new LockError('unauthenticated', `a server without TLS takes the caller's identity from the ${IDENTITY_HEADER} header, and this request has none; set it, or serve with mTLS`);
  }
  return unauthenticated(named);
}
