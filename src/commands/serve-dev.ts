// `lockstep serve --dev`: the service's two-command start (README, "Run the service"). A throwaway local
// etcd (installed and started as the tests start one), a development CA with a server certificate and a
// client certificate for each example identity, the example classes and grants, served over mTLS; it
// prints the exact `lockstep lock --arbiter ...` command to try from a second terminal. Never for a
// deployment: SPIRE issues the real SVIDs (ADR-19).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CliIo, ExitCode } from '../cli-io.js';
import { initEtcdLog } from '../etcd/index.js';
import { makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { startEtcdCluster } from '../testing/etcd-cluster.js';
import { oneLine } from '../terminal-text.js';
import { type ServeOptions, runServe } from './serve.js';

const EXAMPLES = resolve(fileURLToPath(new URL('../../examples', import.meta.url)));
/** The identities of examples/grants/payments.yaml, each with a client certificate. */
const DEV_IDENTITIES = [
  ['ledger-writer', 'spiffe://example.org/ns/payments/sa/ledger-writer'],
  ['operator', 'spiffe://example.org/ns/payments/sa/operator'],
  ['operator-2', 'spiffe://example.org/ns/payments/sa/operator-2'],
] as const;

export async function runServeDev(options: ServeOptions, io: CliIo): Promise<number> {
  if (options.endpoints !== undefined || options.classes !== undefined || options.grants !== undefined || options.tlsCert !== undefined) {
    io.err('lockstep serve: --dev brings its own etcd, classes, grants and certificates; leave out --endpoints, --classes, --grants and the TLS flags (or leave out --dev)');
    return ExitCode.badInput;
  }
  const dir = options.devDir ?? (await mkdtemp(join(tmpdir(), 'lockstep-dev-')));
  io.err(oneLine(`lockstep serve --dev: starting a throwaway etcd and making development certificates in ${dir}`));
  const cluster = await startEtcdCluster({ members: 1 });
  try {
    await initEtcdLog(cluster.endpoints);
    const ca = await makeDevCa(join(dir, 'certs'));
    const server = await makeServerCert(ca);
    for (const [name, id] of DEV_IDENTITIES) await makeClientCert(ca, name, [id]);
    const serve: ServeOptions = {
      ...options,
      endpoints: cluster.endpoints.map((e) => e.replace(/^http:\/\//, '')).join(','),
      classes: join(EXAMPLES, 'classes'),
      grants: join(EXAMPLES, 'grants'),
      tlsCert: server.cert,
      tlsKey: server.key,
      clientCa: ca.cert,
    };
    return await runServe(serve, io, ({ host, port }) => {
      const certs = join(dir, 'certs');
      io.out('Try it from a second terminal:');
      io.out(`  lockstep lock --arbiter ${host}:${port} --tls-cert ${join(certs, 'ledger-writer.crt')} --tls-key ${join(certs, 'ledger-writer.key')} --ca ${ca.cert} payments/ledger/42 -- sh -c 'echo holding with token fingerprint $LOCKSTEP_TOKEN_FINGERPRINT; sleep 5'`);
      io.out(`Operators' certificates (two are needed for a force-release, ADR-20): ${join(certs, 'operator.crt')} and ${join(certs, 'operator-2.crt')}`);
    });
  } finally {
    await cluster.stop();
  }
}
