// The real-etcd side of the LockLog port (ARCHITECTURE.md, Layers: src/ wires real parts together).
export { createEtcdLockLog, DEFAULT_HEDGE_AFTER_MS, DEFAULT_KEEPALIVE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, type EtcdLockLogOptions } from './etcd-lock-log.js';
export { initEtcdLog } from './init-cluster.js';
export type { EtcdClientTls } from './etcd-tls.js';
