// `lockstep serve --topology FILE` (issue 19): the topology file read and checked, the region's clusters
// opened (src/service/topology-arbiter.ts), and each cluster's epoch confirmed before anything listens:
// a cluster that is sealed or not initialised refuses the whole start (exit 5), naming it.
import { readFile } from 'node:fs/promises';
import { isLockError } from '../../core/lock-error.js';
import type { Authorizer, ClassLookup } from '../../core/arbiter/policy.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { Random } from '../../core/ports/random.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { createRealClock } from '../clock/index.js';
import { type EtcdClientTls, createEtcdLockLog } from '../etcd/index.js';
import { type TopologyServing, startTopologyServing } from '../service/topology-arbiter.js';
import { formatProblems, readTopology } from '../service/topology-file.js';
import { oneLine } from '../terminal-text.js';

export interface TopologyInputs {
  readonly file: string;
  readonly classes: ClassLookup;
  readonly authorizer: Authorizer;
  readonly random: Random;
  readonly wrapLog: (log: LockLog) => LockLog;
  /** TLS to every cluster of the topology (one CA and client certificate for the region's lock etcd). */
  readonly etcdTls?: EtcdClientTls | undefined;
}

/** Refusals are thrown for the CLI's boundary (src/cli.ts): BadInput for the file, a Refusal (exit 5) for a cluster. */
export async function openTopology(inputs: TopologyInputs, io: CliIo): Promise<TopologyServing> {
  let text: string;
  try {
    text = await readFile(inputs.file, 'utf8');
  } catch (error) {
    throw new BadInput(`--topology ${inputs.file}: cannot read it: ${(error as Error).message}`);
  }
  const read = readTopology(text);
  if ('problems' in read) throw new BadInput(`--topology ${inputs.file} has ${read.problems.length} problem(s); fix them and run again`, { lines: formatProblems(inputs.file, read.problems) });
  const { topology } = read;
  let serving: TopologyServing;
  try {
    serving = await startTopologyServing({
      topology,
      openLog: (endpoints) => {
        const log = createEtcdLockLog({ endpoints: [...endpoints], ...(inputs.etcdTls === undefined ? {} : { tls: inputs.etcdTls }) });
        return { log: inputs.wrapLog(log), close: () => log.close() };
      },
      clock: createRealClock(),
      random: inputs.random,
      classes: inputs.classes,
      authorizer: inputs.authorizer,
      approvalIdPrefix: `${Math.floor(inputs.random.next() * 2 ** 32).toString(16)}-`,
      onMapChange: (event) => io.err(oneLine('map' in event ? `lockstep serve: shard map v${event.map.version} from the coord cluster` : `lockstep serve: refused a shard map change (the last good map keeps serving): ${event.refused}`)),
    });
  } catch (error) {
    if (!isLockError(error)) throw error;
    throw new Refusal(`cannot read the shard map on coord cluster ${topology.coord.name} (${topology.coord.endpoints.join(',')}): ${error.message}`, ExitCode.refused);
  }
  for (const [name, arbiter] of serving.arbiters) {
    const status = await arbiter.status().catch((error: unknown) => (isLockError(error) ? error : Promise.reject(error)));
    if (status instanceof Error || status.sealed !== undefined || status.epoch === undefined) {
      const why = status instanceof Error ? `unreachable: ${status.message}` : status.sealed === undefined || status.sealed.kind === 'no-epoch-record' ? 'not initialised: run lockstep init (with --coord-endpoints and --cluster-name for an entity shard) first' : `sealed (${status.sealed.kind}): two operators advance its epoch through an arbiter serving it alone (ADR-03)`;
      await serving.close();
      throw new Refusal(`refused: cluster ${name} of ${inputs.file} is ${why}`, ExitCode.refused);
    }
  }
  io.err(oneLine(`lockstep serve: topology ${inputs.file}: region ${topology.region}, coord ${topology.coord.name}, entity ${topology.entity.map((c) => c.name).join(', ')}; shard map v${serving.maps.current().version}, watched`));
  return serving;
}
