// A region's clusters on real etcd for `lockstep serve --topology` tests (issue 19): a coord cluster and two
// entity shards (one member each, initialised, the shards registered on the coord cluster with their
// epochs), the shard map on the coord cluster, a development CA with a server certificate, a worker's and
// two operators' client certificates, the classes and grants directories and the topology file.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerOnCoord } from '../../core/arbiter/coord-epochs.js';
import { initLog } from '../../core/arbiter/init-log.js';
import { EPOCH_KEY, parseEpochRecord } from '../../core/arbiter/records.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { rendezvousPick } from '../../core/shards/rendezvous.js';
import { SHARD_MAP_KEY, type ShardMap } from '../../core/shards/shard-map.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { type EtcdCluster, startEtcdCluster } from './etcd-cluster.js';
import { writeFencedClass } from './lockstep-process.js';

export const SHARDS = ['shard-a', 'shard-b'] as const;
export const COORD_NAME = 'coord-eu';
export const REGION = 'eu';
export const WORKER = 'spiffe://lockstep.test/ns/payments/sa/worker';
export const OPERATOR_NAMES = ['ana', 'ben'] as const;
export const operatorId = (name: string): string => `spiffe://lockstep.test/ops/${name}`;
export const CLASS_NAME = 'moved-writes';
/** Long enough that a hold outlives the CLI runs and the arbiter's restart in between. */
export const CLASS_TTL_SECONDS = 60;

export interface TopologyWorld {
  readonly dir: string;
  readonly topologyFile: string;
  readonly classFile: string;
  readonly dirs: { readonly classes: string; readonly grants: string };
  readonly ca: DevCa;
  readonly server: CertFiles;
  readonly certs: ReadonlyMap<string, CertFiles>;
  /** Log clients of the coord cluster and of each shard, by name. */
  readonly logs: ReadonlyMap<string, LockLog>;
  /** A homing unit of `payments` that rendezvous hashing homes on shard-a. */
  readonly range: string;
  stop(): Promise<void>;
}

const address = (endpoints: readonly string[]): string => endpoints.map((e) => `"${e.replace('http://', '')}"`).join(', ');

export async function startTopologyWorld(): Promise<TopologyWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'lockstep-topology-'));
  const clusters = new Map<string, EtcdCluster>();
  const logs = new Map<string, LockLog>();
  const stop = async (): Promise<void> => {
    for (const log of logs.values()) await (log as LockLog & { close(): Promise<void> }).close();
    for (const cluster of clusters.values()) await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const name of [COORD_NAME, ...SHARDS]) {
      const cluster = await startEtcdCluster({ members: 1, namePrefix: name });
      clusters.set(name, cluster);
      const log = createEtcdLockLog({ endpoints: cluster.endpoints });
      logs.set(name, log);
      await initLog(log); // the coord cluster serves coord-tier keys with its own /sys/epoch
    }
    const coord = logs.get(COORD_NAME) as LockLog;
    for (const shard of SHARDS) {
      const kv = (await (logs.get(shard) as LockLog).range({ key: EPOCH_KEY })).kvs[0];
      const record = parseEpochRecord(kv?.value ?? '');
      if (kv === undefined || record === undefined) throw new Error(`${shard} was not initialised`);
      await registerOnCoord(coord, shard, { ...record, highestRevision: kv.modRevision });
    }
    const map: ShardMap = { version: 1, regions: { [REGION]: { coord: COORD_NAME, entity: [...SHARDS] }, us: { coord: 'coord-us', entity: ['shard-u'] } }, namespaces: { payments: REGION, billing: 'us' } };
    await coord.txn({ compare: [], success: [{ type: 'put', key: SHARD_MAP_KEY, value: JSON.stringify(map) }], failure: [] });
    const range = Array.from({ length: 64 }, (_, i) => `payments/r-${i}`).find((unit) => rendezvousPick([...SHARDS], unit) === 'shard-a') ?? '';

    const ca = await makeDevCa(join(dir, 'certs'));
    const server = await makeServerCert(ca);
    const certs = new Map<string, CertFiles>([['worker', await makeClientCert(ca, 'worker', [WORKER])]]);
    for (const name of OPERATOR_NAMES) certs.set(name, await makeClientCert(ca, name, [operatorId(name)]));
    const dirs = { classes: join(dir, 'classes'), grants: join(dir, 'grants') };
    await mkdir(dirs.classes);
    await mkdir(dirs.grants);
    const classFile = await writeFencedClass(dirs.classes, CLASS_NAME, CLASS_TTL_SECONDS);
    const grant = (name: string, identity: string, role: string): string => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: payments }`, `spec: { identity: "${identity}", prefixes: [payments/]${role} }`].join('\n');
    const grants = [grant('worker', WORKER, ''), ...OPERATOR_NAMES.map((name) => grant(name, operatorId(name), ', role: operator'))];
    await writeFile(join(dirs.grants, 'grants.yaml'), `${grants.join('\n---\n')}\n`);
    const topologyFile = join(dir, 'topology.yaml');
    const endpointsOf = (name: string): string => address((clusters.get(name) as EtcdCluster).endpoints);
    await writeFile(topologyFile, [
      'apiVersion: lockstep.dev/v1', 'kind: Topology', `region: ${REGION}`,
      `coord: { name: ${COORD_NAME}, endpoints: [${endpointsOf(COORD_NAME)}] }`,
      'entity:', ...SHARDS.map((shard) => `  - { name: ${shard}, endpoints: [${endpointsOf(shard)}] }`), '',
    ].join('\n'));
    return { dir, topologyFile, classFile, dirs, ca, server, certs, logs, range, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
