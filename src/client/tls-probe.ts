// Why an arbiter refuses this client's TLS, asked after a call failed in transport (issue 29): a refused
// handshake must be reported as what it is, definite and with its fix, not as "indeterminate". A second
// handshake with the same certificate, key and CA, that sends nothing: the server answers a handshake it
// accepts with its HTTP/2 SETTINGS, and one it refuses with an alert or a reset. Under TLS 1.3 the client
// finishes its half first, so a refusal of the client's certificate arrives after 'secureConnect'.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import type { ClientTls } from './network-arbiter.js';

export interface TlsRefusal {
  /** Which refusal, for the log and the tests. */
  readonly reason: 'no-client-certificate' | 'client-certificate-refused' | 'client-certificate-expired' | 'server-not-trusted' | 'server-certificate-expired' | 'server-name-mismatch' | 'key-mismatch';
  /** What it is and how to fix it. */
  readonly message: string;
}

const PROBE_TIMEOUT_MS = 3000;

/** The refusal of a handshake with `address`, or undefined when the arbiter accepts it (or is simply not there). */
export async function probeTls(address: string, tls: ClientTls, timeoutMs = PROBE_TIMEOUT_MS): Promise<TlsRefusal | undefined> {
  const { hostname, port } = new URL(`https://${address}`);
  const host = hostname.replace(/^\[|\]$/g, '');
  return new Promise((done) => {
    let shook = false;
    let socket: ReturnType<typeof connect>;
    const finish = (outcome: TlsRefusal | undefined): void => {
      clearTimeout(timer);
      socket?.destroy();
      done(outcome);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    try {
      socket = connect({ host, port: Number(port), cert: tls.cert, key: tls.key, ca: tls.ca, ALPNProtocols: ['h2'], servername: /^[\d.:]+$/.test(host) ? undefined : host });
    } catch (error) {
      finish(refusalOf((error as NodeJS.ErrnoException).code, address, false));
      return;
    }
    socket.once('secureConnect', () => (shook = true));
    socket.once('data', () => finish(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(ownExpiry(refusalOf(error.code, address, shook), tls, address)));
    socket.once('close', () => finish(shook ? ownExpiry(refusalOf('ECONNRESET', address, true), tls, address) : undefined));
  });
}

/**
 * A refused client certificate that has expired: the server only resets the connection (node sends no
 * alert that says why), so the client reads the dates of its own certificate.
 */
function ownExpiry(refusal: TlsRefusal | undefined, tls: ClientTls, address: string, nowMs = Date.now()): TlsRefusal | undefined {
  if (refusal?.reason !== 'client-certificate-refused') return refusal;
  let validTo: number;
  try {
    validTo = Date.parse(new X509Certificate(tls.cert).validTo);
  } catch {
    return refusal;
  }
  return validTo < nowMs ? refusalOf('ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED', address, true) : refusal;
}

const SERVER_NOT_TRUSTED = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_SIGNATURE_FAILURE']);

/** The refusal an error code of the probe means; a connection error before any handshake is none. */
export function refusalOf(code: string | undefined, address: string, afterHandshake: boolean): TlsRefusal | undefined {
  if (code === undefined) return undefined;
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') {
    return { reason: 'no-client-certificate', message: `arbiter ${address} requires a client certificate and none was presented: give --tls-cert and --tls-key (the workload's SVID, signed by the CA the arbiter's --client-ca names)` };
  }
  if (code === 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED') {
    return { reason: 'client-certificate-expired', message: `arbiter ${address} refused the client certificate, which has expired: renew it (SPIRE rotates SVIDs; a development certificate lasts 30 days)` };
  }
  if (code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA' || code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' || code === 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE' || (afterHandshake && (code === 'ECONNRESET' || code === 'EPIPE'))) {
    return { reason: 'client-certificate-refused', message: `arbiter ${address} refused the client certificate in the TLS handshake: it is not signed by the CA the arbiter trusts (its --client-ca), or is otherwise invalid; use a certificate that CA issued` };
  }
  if (SERVER_NOT_TRUSTED.has(code)) {
    return { reason: 'server-not-trusted', message: `arbiter ${address}'s certificate is not signed by the CA given in --ca (${code}): give --ca the CA that signed the arbiters' certificates` };
  }
  if (code === 'CERT_HAS_EXPIRED') return { reason: 'server-certificate-expired', message: `arbiter ${address}'s certificate has expired: its operator must renew it` };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { reason: 'server-name-mismatch', message: `arbiter ${address}'s certificate does not name that host: dial the arbiter by a name or address its certificate carries` };
  if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH') return { reason: 'key-mismatch', message: '--tls-key is not the private key of --tls-cert: give the key file made with that certificate' };
  return undefined;
}
