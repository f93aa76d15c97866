// `lockstep health`, the Deployment's probe, against a real arbiter server over mTLS (real etcd behind it):
// SERVING is exit 0, a draining server's NOT_SERVING exit 1, an arbiter that cannot be asked exit 5.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa } from '../service/dev-certs.js';
import type { ArbiterServer } from '../service/server.js';
import { startTlsArbiterServer } from '../testing/tls-arbiter-server.js';
import { useArbiterWorld } from '../testing/arbiter-fixture.js';
import { freePorts } from '../testing/free-port.js';
import { runCli } from '../testing/run-cli.js';

const world = useArbiterWorld();
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-health-'));
let ca: DevCa;
let probe: CertFiles;
let server: ArbiterServer;

beforeAll(async () => {
  ca = await makeDevCa(join(scratch, 'ca'));
  probe = await makeClientCert(ca, 'probe', ['spiffe://lockstep.test/ns/lockstep/sa/arbiter']);
  server = await startTlsArbiterServer(world.arbiter(), ca);
});
afterAll(async () => {
  await server?.drain(1000);
  rmSync(scratch, { recursive: true, force: true });
});

const ask = (address: string, ...more: string[]) => runCli('health', '--arbiter', address, '--tls-cert', probe.cert, '--tls-key', probe.key, '--ca', ca.cert, ...more);

describe('lockstep health', () => {
  it('answers SERVING (exit 0) for the server and each lockstep service, and exit 1 for an unknown service', async () => {
    const whole = await ask(`127.0.0.1:${server.port}`, '--json');
    expect(whole.code).toBe(0);
    expect(JSON.parse(whole.out.at(-1) ?? '{}')).toMatchObject({ status: 'SERVING', service: '' });
    expect((await ask(`127.0.0.1:${server.port}`, '--service', 'lockstep.lock.v1.LockService')).code).toBe(0);
    const unknown = await ask(`127.0.0.1:${server.port}`, '--service', 'no.such.Service');
    expect(unknown.code).toBe(1);
    expect(unknown.out.join('\n')).toContain('SERVICE_UNKNOWN');
  });

  it('exit 5 when nothing answers, exit 2 for a certificate without its key', async () => {
    const [unused] = await freePorts(1);
    const nobody = await ask(`127.0.0.1:${unused}`);
    expect(nobody.code).toBe(5);
    expect(nobody.err.join('\n')).toContain(`could not ask 127.0.0.1:${unused}`);
    const half = await runCli('health', '--arbiter', `127.0.0.1:${server.port}`, '--tls-cert', probe.cert);
    expect(half.code).toBe(2);
  });

  it('answers NOT_SERVING (exit 1) once the server stops serving, as it does when a drain starts', async () => {
    server.health.stopServing();
    const draining = await ask(`127.0.0.1:${server.port}`);
    expect(draining.code).toBe(1);
    expect(draining.out.join('\n')).toContain('NOT_SERVING');
  });
});
