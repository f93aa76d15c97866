// `lockstep init --endpoints H:P[,..] [--epoch N] [--json]`: the operator's first step on a new lock log
// (core/arbiter/init-log.ts, issue 11 S3). No arbiter writes an epoch record by itself: a log without one
// may be brand new, or wiped, or replaced, and only a person can tell which (ADR-03). So `lockstep lock`
// and `serve` refuse such a log (no-epoch-record) and name this command as the fix.
import type { Command } from 'commander';
import { isLockError } from '../../core/lock-error.js';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { EndpointSyntaxError, parseEtcdEndpoints } from '../etcd/endpoint-address.js';
import { type EtcdTlsFlags, addEtcdTlsOptions, loadEtcdTls } from './etcd-tls-options.js';
import { createEtcdLockLog, initEtcdLog } from '../etcd/index.js';
import { registerOnCoord } from '../../core/arbiter/coord-epochs.js';
import { type CoordOptions, type CoordTarget, SINGLE_CLUSTER_HELP, addCoordOptions, parseCoordOptions } from './coord-option.js';

interface InitOptions extends CoordOptions, EtcdTlsFlags {
  endpoints: string;
  epoch?: string;
  json?: boolean;
}

const EPOCH_HELP =
  'the first epoch, default 1. Give it only for a cluster that replaces one which already served tokens: ' +
  'start above every epoch the old cluster served, so that no token is issued twice and tokens never go ' +
  'backwards (ADR-02/03). Needed in single-cluster mode; with --coord-endpoints an advance allocates above the coord record anyway (issue 19)';

export function registerInitCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const command = program
    .command('init')
    .description(
      'Initialise a new lock log: write its epoch record, bound to the cluster ID, once; with --coord-endpoints also register it on the coord cluster. Refused (exit 2) when the log already ' +
        'holds an epoch record or any lockstep key: a wiped or restored log is not new. Exit 0 initialised; 2 bad input or refused; 5 etcd unreachable. ' +
        SINGLE_CLUSTER_HELP,
    )
    .requiredOption('--endpoints <list>', 'etcd client endpoints, host:port[,host:port...] (https://host:port for a TLS-only etcd)');
  addEtcdTlsOptions(command);
  addCoordOptions(command)
    .option('--epoch <n>', EPOCH_HELP)
    .option('--json', 'print one JSON object: {ok, epoch, clusterId, revision} or {ok: false, code, message}')
    .action(async (options: InitOptions) => {
      setExitCode(await runInit(options, io));
    });
}

async function runInit(options: InitOptions, io: CliIo): Promise<number> {
  // Thrown for the CLI's boundary (src/cli.ts), which prints the line and, with --json, the object.
  const refusal = (code: string, message: string, exitCode?: number): Refusal => {
    const detail = options.json === true ? { json: { ok: false, code, message } } : {};
    return exitCode === undefined ? new BadInput(message, detail) : new Refusal(message, exitCode, detail);
  };
  let endpoints: string[];
  try {
    endpoints = parseEtcdEndpoints(options.endpoints);
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    throw refusal('invalid-argument', `--endpoints ${JSON.stringify(options.endpoints)}: ${error.message}`);
  }
  let epoch: number | undefined;
  if (options.epoch !== undefined) {
    // Only the syntax here; the range is initLog's rule (ADR-02), checked before it touches the log.
    if (!/^[1-9][0-9]*$/.test(options.epoch)) throw refusal('invalid-argument', `--epoch ${JSON.stringify(options.epoch)} is not a whole number from 1`);
    epoch = Number(options.epoch);
  }
  const coord = parseCoordOptions(options);
  if (coord !== undefined && 'error' in coord) throw refusal('invalid-argument', coord.error);
  const where = endpoints.join(',');
  const etcdTls = await loadEtcdTls(options);
  try {
    const result = await initEtcdLog(endpoints, epoch === undefined ? {} : { epoch }, etcdTls);
    if (coord !== undefined) await register(coord, { epoch: result.epoch, clusterId: result.clusterId, highestRevision: result.revision });
    const clusterId = result.clusterId.toString(16);
    if (options.json === true) {
      io.out(JSON.stringify({ ok: true, epoch: result.epoch, clusterId, revision: result.revision.toString(), endpoints, epochs: coord === undefined ? 'single-cluster' : 'coord' }));
    } else {
      const registered = coord === undefined ? ' (single-cluster mode)' : `, registered on the coord cluster as ${coord.clusterName}`;
      io.out(`lockstep init: initialised the lock log at ${where}: epoch ${result.epoch}, bound to cluster ${clusterId}${registered}; lockstep lock can use it now`);
    }
    return ExitCode.ok;
  } catch (error) {
    if (isLockError(error, 'invalid-argument')) throw refusal(error.code, `refused for ${where}: ${error.message}`);
    if (isLockError(error) || isLockLogError(error)) {
      throw refusal(error.code, `could not initialise the lock log at ${where}: ${error.message}; check that the endpoints name running members of one etcd cluster`, ExitCode.refused);
    }
    throw error;
  }
}

/**
 * The entity cluster's epoch record on the coord cluster (core/arbiter/coord-epochs.ts). It runs after the
 * entity log's own init: if it fails there, the log is initialised but unregistered, and every arbiter in
 * coord mode refuses it (no-epoch-record) until it is registered.
 */
async function register(coord: CoordTarget, record: Parameters<typeof registerOnCoord>[2]): Promise<void> {
  const log = createEtcdLockLog({ endpoints: coord.endpoints });
  try {
    await registerOnCoord(log, coord.clusterName, record);
  } finally {
    await log.close();
  }
}
