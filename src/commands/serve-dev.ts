// `lockstep serve --dev`: the service's two-command start (README, "Run the service"). A throwaway local
// etcd (installed and started as the tests start one), a development CA with a server certificate and a
// client certificate for each example identity, the example classes and grants, served over mTLS; it
// prints the exact `npx lockstep lock --arbiter ...` command to try from a second terminal. Never for a
// deployment: SPIRE issues the real SVIDs (ADR-19). The directory it made (a CA key among the files) is
// removed when it stops, whether it served or failed to start (issue 29).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BadInput } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';
import { initEtcdLog } from '../etcd/index.js';
import { makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { startEtcdCluster } from '../testing/etcd-cluster.js';
import { REPO_ROOT } from '../repo-root.js';
import { oneLine } from '../terminal-text.js';
import { type ServeOptions, runServe } from './serve.js';

// From the package root, not from this file: compiled, this file sits in dist/js/src/commands (issue 29).
const EXAMPLES = join(REPO_ROOT, 'examples');
/** The identities of examples/grants/payments.yaml, each with a client certificate. */
const DEV_IDENTITIES = [
  ['ledger-writer', 'spiffe://example.org/ns/payments/sa/ledger-writer'],
  ['operator', 'spiffe://example.org/ns/payments/sa/operator'],
  ['operator-2', 'spiffe://example.org/ns/payments/sa/operator-2'],
] as const;

export async function runServeDev(options: ServeOptions, io: CliIo): Promise<number> {
  if (options.endpoints !== undefined || options.classes !== undefined || options.grants !== undefined || options.tlsCert !== undefined) {
    throw new BadInput('--dev brings its own etcd, classes, grants and certificates; leave out --endpoints, --classes, --grants and the TLS flags (or leave out --dev)');
  }
  const made = options.devDir === undefined;
  const dir = options.devDir ?? (await mkdtemp(join(tmpdir(), 'lockstep-dev-')));
  io.err(oneLine(`lockstep serve --dev: starting a throwaway etcd and making development certificates in ${dir}`));
  try {
    return await serveDev(options, dir, io);
  } finally {
    // What --dev made is of no use once its etcd is gone, and it holds a CA key: never leave it behind.
    if (made) await rm(dir, { recursive: true, force: true });
  }
}

async function serveDev(options: ServeOptions, dir: string, io: CliIo): Promise<number> {
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
    return await runServe(serve, io, (address) => {
      const certs = join(dir, 'certs');
      io.out('Try it from a second terminal:');
      io.out(`  ${devLockCommand(address, certs)}`);
      io.out(`Operators' certificates (two are needed for a force-release, ADR-20): ${join(certs, 'operator.crt')} and ${join(certs, 'operator-2.crt')}`);
    });
  } finally {
    await cluster.stop();
  }
}

/**
 * The one place the lock command `serve --dev` suggests is written (README, "Run the service"): what a new
 * user pastes, so through npx (lockstep is not on their PATH), with the dev certificates in `certs`.
 */
export function devLockCommand(address: { host: string; port: number }, certs: string): string {
  const file = (name: string): string => join(certs, name);
  return [
    'npx lockstep lock', `--arbiter ${address.host}:${address.port}`,
    `--tls-cert ${file('ledger-writer.crt')} --tls-key ${file('ledger-writer.key')} --ca ${file('ca.crt')}`,
    // No --class: the arbiters tell the client the class that governs the key (DescribeKey, ADR-24).
    "payments/ledger/42 -- sh -c 'echo holding with token fingerprint $LOCKSTEP_TOKEN_FINGERPRINT; sleep 5'",
  ].join(' ');
}
