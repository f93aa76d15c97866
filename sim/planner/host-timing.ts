// The host term of the quorum model (issue 32, "the model fixed"): what a machine's own processes cost per
// grant, beside the topology's network. By default the model prices a dedicated machine with the
// simulator's guesses (the topology's fsync, 0.05 ms of etcd CPU per request, nothing for the arbiter).
// Given this machine's `lockstep bench --profile`, the priced world takes instead its measured WAL fsync,
// its etcd CPU per request and per applied entry, and the arbiter's CPU per etcd call (the bench's
// in-process arbiter and etcd client), as `gate --compare-sim` calibrates the simulator
// (src/gate/gate-calibration.ts), and, when the profile carries it, the lock.v1 hop's CPU per call (the
// network client's and `lockstep serve`'s gRPC, served-hop.ts). With `--measure` the rig's own cost is
// added too: every link of the built topology runs through a Node proxy, one event-loop turn and a wakeup
// of the measuring process per message, probed during each measurement (src/planner-measure/hop-probe.ts)
// and added to each link.
// CPU per operation also counts work off the grant's path (a release's tail, trailers sent a turn later,
// GC, keepalives, work overlapping on another core): the world pays only the share of each CPU term that
// host-fit.ts fits to the bench's own measured acquire latency, and each acquisition waits the host's
// scheduling delay fitted beside it. The throughput ceiling still pays all of the CPU.
// Each term is a named row of the printed assumptions, never folded into the topology's own figures.
import { specAt, type LatencySpec, type Topology } from '../../core/planner/topology.js';
import { DEFAULT_REQUEST_COST_MS } from '../cluster/timing.js';
import type { DistributionSpec } from '../kernel/distribution.js';
import type { HostFit } from './host-fit.js';
import type { ServedHopCost } from './served-hop.js';

/** A per-message cost, its median and p99, ms. */
export interface MessageCost {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface HostTiming {
  /** Where the figures come from, printed with them. */
  readonly source: string;
  /** This machine's WAL fsync: replaces the topology's (and each member's). */
  readonly walFsync?: LatencySpec;
  /** etcd CPU per client request on the member that serves it (EtcdTiming.requestCostMs). */
  readonly requestCostMs?: number;
  /** etcd CPU per applied entry on every member (EtcdTiming.applyCostMs). */
  readonly applyCostMs?: number;
  /** The arbiter's CPU per call to etcd (lockstep, the etcd client, gRPC), paid on its one thread. */
  readonly arbiterCostMsPerCall?: number;
  /** The lock.v1 hop's CPU per call (served-hop.ts): the client's on each client, serve's on the arbiter's thread. Absent: unpriced. */
  readonly servedHop?: ServedHopCost;
  /** The bench concurrency the CPU costs were measured at. */
  readonly fromConcurrency?: number;
  /** The measuring rig's cost per message on every link (a proxy hop), added to each link's one-way delay. */
  readonly rigLinkCost?: MessageCost;
  /**
   * The bench's own measured service acquire latency at fromConcurrency: what host-fit.ts fits to, with
   * how many acquisitions it rests on when the bench measured it as the fit target. Absent: not fitted.
   */
  readonly benchAcquire?: MessageCost & { readonly samples?: number };
  /** The share of every CPU term on the grant's critical path, in [0, 1] (host-fit.ts). Absent: all of it. */
  readonly cpuOnPathShare?: number;
  /** Each acquisition's wait for a CPU beyond the model's, drawn once per acquisition (host-fit.ts). Absent: none. */
  readonly schedulingDelay?: DistributionSpec;
  /** How the two terms above were fitted, printed with them. Absent: not fitted. */
  readonly fit?: HostFit;
}

export const SIMULATOR_DEFAULTS_SOURCE = "the simulator's defaults (a dedicated machine; no bench profile)";

/** The topology as this host runs it: its disks replaced by the host's measured fsync, when there is one. */
export function timedTopology(topology: Topology, host: HostTiming | undefined): Topology {
  if (host?.walFsync === undefined) return topology;
  return { ...topology, fsync: host.walFsync, members: topology.members.map(({ fsync: _own, ...member }) => member) };
}

/** The etcd timing fields the host sets (absent ones keep the simulator's defaults). */
export function etcdCosts(host: HostTiming | undefined): { requestCostMs?: number; applyCostMs?: number } {
  return { ...(host?.requestCostMs === undefined ? {} : { requestCostMs: host.requestCostMs }), ...(host?.applyCostMs === undefined ? {} : { applyCostMs: host.applyCostMs }) };
}

/**
 * A link's one-way latency with the rig's cost per message added: the median to the median and the p99
 * to the p99 (a constant link becomes a lognormal one when the rig's cost has a tail).
 */
export function withRigCost(spec: DistributionSpec, cost: MessageCost | undefined): DistributionSpec {
  if (cost === undefined || (cost.p50Ms <= 0 && cost.p99Ms <= 0)) return spec;
  const medianMs = specAt(spec, 0.5) + Math.max(0, cost.p50Ms);
  const p99Ms = Math.max(medianMs, specAt(spec, 0.99) + Math.max(0, cost.p99Ms));
  return p99Ms > medianMs ? { kind: 'lognormal', medianMs, p99Ms } : { kind: 'constant', ms: medianMs };
}

/**
 * The host as the grant's path pays it: every CPU term scaled by the fitted share on the path (unchanged
 * when not fitted). The throughput ceiling (leaderCostMsPerCycle) takes the whole cost, unscaled.
 */
export function onPathCosts(host: HostTiming | undefined): HostTiming | undefined {
  const share = host?.cpuOnPathShare;
  if (host === undefined || share === undefined) return host;
  const scaled = (field: 'requestCostMs' | 'applyCostMs' | 'arbiterCostMsPerCall'): Partial<HostTiming> => (host[field] === undefined ? {} : { [field]: host[field] * share });
  const hop = host.servedHop;
  return {
    ...host,
    ...scaled('requestCostMs'),
    ...scaled('applyCostMs'),
    ...scaled('arbiterCostMsPerCall'),
    ...(hop === undefined ? {} : { servedHop: { clientMsPerCall: hop.clientMsPerCall * share, serveMsPerCall: hop.serveMsPerCall * share } }),
  };
}

/** CPU ms a grant + release cycle costs the leader: request handling and the apply, per write, two writes. */
export function leaderCostMsPerCycle(host: HostTiming | undefined): number {
  return 2 * ((host?.requestCostMs ?? DEFAULT_REQUEST_COST_MS) + (host?.applyCostMs ?? 0));
}
