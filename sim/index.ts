// The simulator's foundation: kernel (virtual time, events, RNG streams, drain), processes with
// clocks, network, disks and trace. scenarios/ and src/ import from here.
export { Kernel, MaxEventsExceededError, DEFAULT_MAX_EVENTS } from './kernel/kernel.js';
export type { KernelOptions, RunOptions, RunResult, Deferred, EventCallback, EventId } from './kernel/kernel.js';
export { EventHeap, SLOT_SPACE } from './kernel/event-heap.js';
export { Rng, RandomStream, deriveSeed } from './kernel/rng.js';
export { compileDistribution, standardNormalQuantile } from './kernel/distribution.js';
export type { DistributionSpec, Quantile } from './kernel/distribution.js';
export { SimProcess } from './process/process.js';
export type { ProcessOptions, ProcessState, SteppedClock, CrashOptions, CrashHook, RestartHook, TimerId } from './process/process.js';
export { LocalClock, nextUp } from './process/local-clock.js';
export type { ClockSpec } from './process/local-clock.js';
export { Network, DEFAULT_MAX_IN_FLIGHT } from './net/network.js';
export type { NetworkOptions, Delivery, MessageHandler, DropReason } from './net/network.js';
export type { Unreachable, UnreachableHandler, UnreachableReason } from './net/kernel-answers.js';
export { SIM_MODEL_VERSION, UNVERSIONED_MODEL } from './model-version.js';
export { resolveLink, DEFAULT_LATENCY } from './net/link-spec.js';
export type { LinkSpec, ResolvedLink } from './net/link-spec.js';
export type { PartitionSpec, PartitionId } from './net/partition.js';
export { Disk, DEFAULT_MAX_QUEUED_FSYNCS } from './disk/disk.js';
export type { DiskOptions } from './disk/disk.js';
export { Trace, DEFAULT_MAX_KEPT_RECORDS } from './trace/trace.js';
export type { TraceOptions, TraceRecord, TraceListener } from './trace/trace.js';
export { Fnv1a64, fnv1a64Hex } from './trace/fnv64.js';
export { canonicalText } from './trace/canonical.js';
export { runReferenceWorkload } from './trace/reference-workload.js';
export type { ReferenceWorkloadOptions, ReferenceWorkloadResult } from './trace/reference-workload.js';
// The simulated etcd cluster: members, builder, snapshot/restore, the LockLog client and the test driver.
export {
  EtcdMember, CONNECTION_RESET_DELAY_MS, createSimCluster, restoreSimCluster, createClusterNetwork, etcdTiming, DEFAULT_REQUEST_COST_MS,
  ETCD_SIM_VERSION, computeMemberId, computeClusterId, clusterIds, defaultPeerUrl, idHex, DEFAULT_CLUSTER_TOKEN, bumpSnapshot, snapshotOf,
  stateFromOps, createSimLockLog, DEFAULT_SIM_REQUEST_TIMEOUT_MS, SimDriver, DRIVER_WAIT_BOUND_MS, startSessionWorkload, portsOf, processNamed, PortMux, MEMBER_PORT,
} from './cluster/index.js';
export type {
  EtcdMemberOptions, MemberObserver, MemberRuntime, SimCluster, SimClusterOptions, EtcdTiming, EtcdTimingInput, EtcdSnapshot, SnapshotOp,
  SimLockLog, SimLockLogOptions, SimDriverOptions, SessionWorkload, SessionWorkloadOptions, WorkloadStats, ClusterNetwork, PortHandler, ClusterMessage, ClientRequest, EtcdEntry, ResultBody, WireError,
} from './cluster/index.js';
