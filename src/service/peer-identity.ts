// ADR-19: with mTLS the caller is the SPIFFE ID in the client certificate's URI SAN. A certificate that
// carries no spiffe:// URI, or more than one, names no single workload and is refused. Without TLS (a
// loopback development server, `lockstep serve` warns) the identity is whatever the caller says in a
// header, and is marked unauthenticated so it can never act as an operator (ADR-20).
import type { TLSSocket } from 'node:tls';
import { LockError } from '../../core/lock-error.js';
import { type Caller, authenticated, unauthenticated } from '../../core/ports/caller.js';

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

/** The caller of a request on `socket`: from its verified client certificate, or from the header without TLS. */
export function callerOf(socket: unknown, identityHeader: string | string[] | undefined, tls: boolean): Caller {
  if (tls) {
    const peer = (socket as TLSSocket).getPeerCertificate?.();
    if (peer === undefined || peer === null || Object.keys(peer).length === 0 || (socket as TLSSocket).authorized !== true) {
      throw new LockError('unauthenticated', 'the connection presented no client certificate the server trusts; connect with --tls-cert and --tls-key signed by the server\'s --client-ca');
    }
    return authenticated(spiffeIdOf(peer.subjectaltname));
  }
  const named = Array.isArray(identityHeader) ? identityHeader[0] : identityHeader;
  if (named === undefined || named === '') {
    throw new LockError('unauthenticated', `a server without TLS takes the caller's identity from the ${IDENTITY_HEADER} header, and this request has none; set it, or serve with mTLS`);
  }
  return unauthenticated(named);
}
