// Development certificates for mTLS (ADR-19), made with Debian's openssl: a throwaway CA, a server
// certificate for loopback, and client certificates whose URI SANs carry the SPIFFE IDs given (none, one
// or several: the tests need the refusals too). For `lockstep serve --dev` and the tests, never for a
// deployment, where SPIRE issues the SVIDs.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureProgram } from '../testing/debian-package.js';

const run = promisify(execFile);
const OPENSSL = { name: 'openssl', debianPackage: 'openssl', commands: ['openssl'], overrideEnv: 'LOCKSTEP_OPENSSL_BINARY' } as const;
const DAYS = '30';
const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export interface CertFiles {
  readonly cert: string;
  readonly key: string;
}

export interface DevCa extends CertFiles {
  readonly dir: string;
  readonly openssl: string;
}

export async function makeDevCa(dir: string): Promise<DevCa> {
  await mkdir(dir, { recursive: true });
  const openssl = await ensureProgram(OPENSSL);
  const cert = join(dir, 'ca.crt');
  const key = join(dir, 'ca.key');
  await run(openssl, ['req', '-x509', ...KEY, '-keyout', key, '-out', cert, '-days', DAYS, '-subj', '/CN=lockstep development CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  return { dir, openssl, cert, key };
}

async function signed(ca: DevCa, name: string, extensions: readonly string[], days = DAYS): Promise<CertFiles> {
  const cert = join(ca.dir, `${name}.crt`);
  const key = join(ca.dir, `${name}.key`);
  const csr = join(ca.dir, `${name}.csr`);
  const ext = join(ca.dir, `${name}.ext`);
  await writeFile(ext, `${extensions.join('\n')}\n`);
  await run(ca.openssl, ['req', ...KEY, '-keyout', key, '-out', csr, '-subj', `/CN=${name}`]);
  await run(ca.openssl, ['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', cert, '-days', days, '-extfile', ext]);
  return { cert, key };
}

/** A server certificate for localhost and 127.0.0.1. */
export function makeServerCert(ca: DevCa, name = 'arbiter'): Promise<CertFiles> {
  return signed(ca, name, ['subjectAltName=DNS:localhost,IP:127.0.0.1', 'extendedKeyUsage=serverAuth', 'keyUsage=critical,digitalSignature']);
}

/**
 * A client certificate carrying `spiffeIds` as URI SANs (none at all gives a certificate without a SAN).
 * `days` -1 makes one that expired a day before it began, for the tests of the refusal.
 */
export function makeClientCert(ca: DevCa, name: string, spiffeIds: readonly string[], days = DAYS): Promise<CertFiles> {
  const san = spiffeIds.length === 0 ? [] : [`subjectAltName=${spiffeIds.map((id) => `URI:${id}`).join(',')}`];
  return signed(ca, name, [...san, 'extendedKeyUsage=clientAuth', 'keyUsage=critical,digitalSignature'], days);
}
