// The simulated etcd cluster (see README.md): members, cluster builder, snapshot and restore, the
// LockLog client over the simulated network, and the driver that runs async tests in virtual time.
export { EtcdMember } from './member.js';
export type { EtcdMemberOptions, MemberObserver } from './member.js';
export type { MemberRuntime } from './member-runtime.js';
export { createSimCluster, restoreSimCluster, createClusterNetwork } from './cluster.js';
export type { SimCluster, SimClusterOptions } from './cluster.js';
export { etcdTiming, DEFAULT_REQUEST_COST_MS, ETCD_SIM_VERSION } from './timing.js';
export type { EtcdTiming, EtcdTimingInput } from './timing.js';
export { computeMemberId, computeClusterId, clusterIds, defaultPeerUrl, idHex, DEFAULT_CLUSTER_TOKEN } from './ids.js';
export { sha1, utf8Bytes } from './sha1.js';
export { bumpSnapshot, snapshotOf, stateFromOps } from './snapshot.js';
export type { EtcdSnapshot, SnapshotOp } from './snapshot.js';
export { createSimLockLog, DEFAULT_SIM_REQUEST_TIMEOUT_MS } from './lock-log.js';
export type { SimLockLog, SimLockLogOptions } from './lock-log.js';
export { SimDriver, DRIVER_WAIT_BOUND_MS } from './driver.js';
export { startSessionWorkload } from './workload.js';
export type { SessionWorkload, SessionWorkloadOptions, WorkloadStats } from './workload.js';
export type { SimDriverOptions } from './driver.js';
export { portsOf, processNamed, PortMux, CONNECTION_RESET_DELAY_MS } from './ports.js';
export type { ClusterNetwork, PortHandler } from './ports.js';
export { MEMBER_PORT, mutates } from './protocol.js';
export type { ClusterMessage, ClientRequest, EtcdEntry, ResultBody, WireError } from './protocol.js';
