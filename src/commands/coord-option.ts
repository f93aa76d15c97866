// `--coord-endpoints` and `--cluster-name`, shared by `lockstep init` and `lockstep lock` (issue 19,
// ADR-03/07): where each entity cluster's epoch record lives, outside the log it protects
// (core/arbiter/coord-epochs.ts). Without them a command runs in single-cluster mode, whose weaker
// guarantee the help states (docs/seal-and-epochs.md).
import type { Command } from 'commander';
import { coordEpochKey } from '../../core/arbiter/coord-epochs.js';
import { isLockError } from '../../core/lock-error.js';
import { EndpointSyntaxError, parseEtcdEndpoints } from '../etcd/endpoint-address.js';

export interface CoordOptions {
  coordEndpoints?: string;
  clusterName?: string;
}

export interface CoordTarget {
  readonly endpoints: string[];
  /** The entity cluster's name: its record is /sys/epochs/<name> on the coord cluster. */
  readonly clusterName: string;
}

export const SINGLE_CLUSTER_HELP =
  'Without --coord-endpoints the epoch comes from the lock log itself (single-cluster mode, for small deployments): ' +
  'an arbiter started after a restore that kept the cluster token, or an advance after restoring an older backup, ' +
  'can issue again tokens already handed out; restore with a new cluster token (docs/seal-and-epochs.md). ' +
  'With --coord-endpoints the epoch record lives on the coord cluster and no restore of the lock log brings an old epoch back.';

export function addCoordOptions(command: Command): Command {
  return command
    .option('--coord-endpoints <list>', 'the coord cluster\'s etcd endpoints, host:port[,host:port...]: epochs come from there (ADR-03/07)')
    .option('--cluster-name <name>', 'this lock log\'s name on the coord cluster (lower-case letters, digits, dashes); required with --coord-endpoints');
}

/** The coord target, undefined for single-cluster mode, or a message naming the input, the rule and the fix. */
export function parseCoordOptions(options: CoordOptions): CoordTarget | undefined | { readonly error: string } {
  if (options.coordEndpoints === undefined) {
    return options.clusterName === undefined ? undefined : { error: '--cluster-name names the lock log on the coord cluster; give --coord-endpoints too, or leave both out for single-cluster mode' };
  }
  let endpoints: string[];
  try {
    endpoints = parseEtcdEndpoints(options.coordEndpoints);
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    return { error: `--coord-endpoints ${JSON.stringify(options.coordEndpoints)}: ${error.message}` };
  }
  if (options.clusterName === undefined) return { error: '--coord-endpoints needs --cluster-name: the name of this lock log\'s epoch record on the coord cluster (e.g. --cluster-name orders-etcd)' };
  try {
    coordEpochKey(options.clusterName);
  } catch (error) {
    if (isLockError(error, 'invalid-argument')) return { error: `--cluster-name: ${error.message}` };
    throw error;
  }
  return { endpoints, clusterName: options.clusterName };
}
