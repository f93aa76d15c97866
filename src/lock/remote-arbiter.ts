// `lockstep lock --arbiter H:P[,..]`: the client library against `lockstep serve` arbiters over lock.v1
// (ADR-18) instead of an in-process arbiter. With --tls-cert/--tls-key/--ca the identity is the
// certificate's SPIFFE ID (ADR-19), read here only to name it and to compare holders (the server takes it
// from the TLS handshake); without TLS --identity is claimed in a header and is unauthenticated.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isLockError } from '../../core/lock-error.js';
import { EndpointSyntaxError, parseEndpointList } from '../etcd/endpoint-address.js';
import { type ClientTls, NetworkArbiter } from '../client/network-arbiter.js';
import { systemReason } from '../cli-errors.js';
import { spiffeIdOf } from '../service/peer-identity.js';

export interface RemoteOptions {
  readonly arbiter: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly ca?: string;
  readonly identity?: string;
}

/** `unauthenticated`: the certificate names no single SPIFFE ID, a refusal of its own exit code (issue 29). */
export type Remote = { readonly arbiter: NetworkArbiter; readonly identity: string; readonly addresses: readonly string[] } | { readonly refused: string; readonly unauthenticated?: true };

export async function connectRemote(options: RemoteOptions): Promise<Remote> {
  let addresses: string[];
  try {
    addresses = parseEndpointList(options.arbiter).map((url) => url.replace(/^http:\/\//, ''));
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    return { refused: `--arbiter ${JSON.stringify(options.arbiter)}: ${error.message.replace('a member\'s client address', 'an arbiter\'s address (lockstep serve --listen)')}` };
  }
  const tls = await readClientTls(options);
  if (tls === undefined) {
    if (options.identity === undefined) return { refused: '--arbiter without TLS needs --identity (claimed, unauthenticated); or give --tls-cert, --tls-key and --ca' };
    return { arbiter: new NetworkArbiter({ addresses, identity: options.identity }), identity: options.identity, addresses };
  }
  if ('refused' in tls) return tls;
  const { cert, key, ca } = tls;
  let identity: string;
  try {
    identity = spiffeIdOf(new X509Certificate(cert).subjectAltName);
  } catch (error) {
    if (isLockError(error)) return { refused: `--tls-cert ${options.tlsCert}: ${error.message.slice(error.code.length + 2)}`, unauthenticated: true };
    return { refused: `--tls-cert ${options.tlsCert} is not a PEM certificate: ${(error as Error).message}` };
  }
  if (options.identity !== undefined && options.identity !== identity) {
    return { refused: `--identity ${options.identity} is not the certificate's SPIFFE ID ${identity}; with TLS the certificate names the caller (ADR-19): leave --identity out` };
  }
  return { arbiter: new NetworkArbiter({ addresses, tls: { cert, key, ca } }), identity, addresses };
}

/**
 * The client certificate, its key and the arbiters' CA that --tls-cert, --tls-key and --ca name (every
 * client command: lock, admin, health), read whole; undefined when none is given; a refusal naming the
 * flag when only some are, or a file cannot be read.
 */
export async function readClientTls(files: { readonly tlsCert?: string | undefined; readonly tlsKey?: string | undefined; readonly ca?: string | undefined }): Promise<ClientTls | { readonly refused: string } | undefined> {
  const named = [['--tls-cert', files.tlsCert], ['--tls-key', files.tlsKey], ['--ca', files.ca]] as const;
  const given = named.filter(([, path]) => path !== undefined).length;
  if (given === 0) return undefined;
  if (given !== named.length) return { refused: '--tls-cert, --tls-key and --ca go together: the client certificate, its key and the CA of the arbiters\' certificates' };
  const read: Buffer[] = [];
  for (const [flag, path] of named) {
    try {
      read.push(await readFile(path as string));
    } catch (error) {
      return { refused: `${flag} ${path}: cannot read the file: ${systemReason(error)}` };
    }
  }
  const [cert, key, ca] = read as [Buffer, Buffer, Buffer];
  return { cert, key, ca };
}
