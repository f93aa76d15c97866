// An arbiter server over mTLS for tests: a server certificate from `ca` (dev-certs.ts), client
// certificates that `ca` signed accepted, and any unexpected error in a call thrown, so a test fails on it.
import { readFile } from 'node:fs/promises';
import { type DevCa, makeServerCert } from '../service/dev-certs.js';
import { type ArbiterServer, type ArbiterServerOptions, startArbiterServer } from '../service/server.js';

export async function startTlsArbiterServer(arbiter: ArbiterServerOptions['arbiter'], ca: DevCa, options: { readonly trustedProxies?: readonly string[] } = {}): Promise<ArbiterServer> {
  const serverCert = await makeServerCert(ca);
  return startArbiterServer({
    arbiter,
    host: '127.0.0.1',
    port: 0,
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
    tls: { cert: await readFile(serverCert.cert), key: await readFile(serverCert.key), clientCa: await readFile(ca.cert) },
    onUnexpected: (error) => {
      throw error;
    },
  });
}
