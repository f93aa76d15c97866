// A certificate rotated under a running arbiter (a new SVID and trust bundle written over the files, as
// spiffe-helper does): after the reload, new connections get the new certificate and are checked against
// the new client CA; a half-written set (a key that does not match its certificate) is refused and the last
// good set keeps serving. Real mTLS, a real arbiter on real etcd.
import { copyFile, readFile, rename, writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FENCED, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from './dev-certs.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type ArbiterServer, startArbiterServer } from './server.js';
import { type TlsReload, type TlsWatch, watchServerTls } from './tls-reload.js';

const world = useArbiterWorld();
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-tls-reload-'));
const live = { cert: join(scratch, 'svid.pem'), key: join(scratch, 'svid-key.pem'), clientCa: join(scratch, 'bundle.pem') };
const ID = 'spiffe://lockstep.test/ns/payments/sa/rotating';
let oldCa: DevCa;
let newCa: DevCa;
let server: ArbiterServer;
let watch: TlsWatch;
const reports: TlsReload[] = [];

/** Writes a server certificate of `ca` and `ca` as the client bundle over the live files, by rename. */
async function install(ca: DevCa, cert: CertFiles): Promise<void> {
  for (const [from, to] of [[cert.cert, live.cert], [cert.key, live.key], [ca.cert, live.clientCa]] as const) {
    await copyFile(from, `${to}.new`);
    await rename(`${to}.new`, to);
  }
}

async function openSessionAs(ca: DevCa, client: CertFiles): Promise<Code | 'ok'> {
  const arbiter = new NetworkArbiter({ addresses: [`127.0.0.1:${server.port}`], tls: { cert: await readFile(client.cert), key: await readFile(client.key), ca: await readFile(ca.cert) }, callTimeoutMs: 3_000 });
  try {
    await arbiter.openSession({ ttlSeconds: FENCED.ttlSeconds });
    return 'ok';
  } catch (error) {
    return error instanceof ConnectError ? error.code : (error as { code?: Code }).code ?? Code.Unknown;
  } finally {
    arbiter.close();
  }
}

beforeAll(async () => {
  oldCa = await makeDevCa(join(scratch, 'old'));
  newCa = await makeDevCa(join(scratch, 'new'));
  await install(oldCa, await makeServerCert(oldCa));
  server = await startArbiterServer({
    arbiter: world.arbiter(), host: '127.0.0.1', port: 0,
    tls: { cert: await readFile(live.cert), key: await readFile(live.key), clientCa: await readFile(live.clientCa) },
    onUnexpected: (error) => {
      throw error;
    },
  });
  watch = watchServerTls(live, (tls) => server.setTls(tls), (outcome) => reports.push(outcome), 60_000);
  await watch.check();
});
afterAll(async () => {
  watch?.stop();
  await server?.drain(1000);
  rmSync(scratch, { recursive: true, force: true });
});

describe('serve reloads a rotated certificate and client CA', () => {
  it('serves the new certificate and trusts only the new bundle after the files change', async () => {
    const oldClient = await makeClientCert(oldCa, 'old-client', [ID]);
    const newClient = await makeClientCert(newCa, 'new-client', [ID]);
    expect(await openSessionAs(oldCa, oldClient)).toBe('ok');
    expect(await openSessionAs(newCa, newClient)).not.toBe('ok'); // control: nothing of the new CA is trusted yet

    await install(newCa, await makeServerCert(newCa));
    expect(await watch.check()).toEqual({ adopted: true });
    expect(await openSessionAs(newCa, newClient)).toBe('ok');
    expect(await openSessionAs(oldCa, oldClient)).not.toBe('ok');
  });

  it('refuses a half-written set (the key of another certificate) and keeps serving the last good one', async () => {
    const stray = await makeServerCert(oldCa, 'stray');
    await writeFile(live.key, await readFile(stray.key));
    const outcome = await watch.check();
    expect(outcome?.adopted).toBe(false);
    expect(reports.at(-1)).toEqual(outcome);
    const newClient = await makeClientCert(newCa, 'new-client-2', [ID]);
    expect(await openSessionAs(newCa, newClient)).toBe('ok');
  });
});
