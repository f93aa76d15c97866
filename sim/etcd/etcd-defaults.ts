// etcd 3.4.23's defaults the state machines depend on (design/etcd-behaviour.md section 0). Each one is a
// named limit (STYLE.md, "put a limit on everything") so a scenario can override it in one place.

/** `minLeaseTTL` = ceil(floor(3 * ElectionTicks / 2) * TickMs) = 2 s (etcdserver/server.go l.550, l.559). */
export const MIN_LEASE_TTL_SECONDS = 2;
/** `MaxLeaseTTL` (lease/lessor.go l.39). */
export const MAX_LEASE_TTL_SECONDS = 9_000_000_000;
/** `ExpiredLeasesRetryInterval: ReqTimeout()` = 7 s (etcdserver/server.go l.561). */
export const EXPIRED_LEASE_RETRY_INTERVAL_MS = 7_000;
/** `leaseRevokeRate` (lease/lessor.go l.49): the runLoop revokes at most half of it per 500 ms pass. */
export const LEASE_REVOKE_RATE_PER_SECOND = 1_000;
/** `leaseCheckpointRate` (lease/lessor.go l.52). */
export const LEASE_CHECKPOINT_RATE_PER_SECOND = 1_000;
/** `defaultLeaseCheckpointInterval` = 5 min (lease/lessor.go l.55). */
export const LEASE_CHECKPOINT_INTERVAL_MS = 5 * 60 * 1_000;
/** `maxLeaseCheckpointBatchSize` (lease/lessor.go l.58). */
export const MAX_LEASE_CHECKPOINT_BATCH_SIZE = 1_000;
/** The lessor runLoop period (lease/lessor.go runLoop l.613-626). */
export const LESSOR_LOOP_INTERVAL_MS = 500;
/** Promote's `extend` = electionTimeout = 1 s (etcdserver/server.go applyEntryNormal l.2219). */
export const PROMOTE_EXTEND_MS = 1_000;
/** A lease that never expires answers `Remaining()` = MaxInt64 ns, i.e. this many whole seconds (lease/lessor.go l.902-909). */
export const FOREVER_TTL_SECONDS = 9_223_372_036;
/** `MaxTxnOps` (embed/config.go l.56-58). */
export const MAX_TXN_OPS = 128;
/** `maxWatchersPerSync` (mvcc/watchable_store.go). */
export const MAX_WATCHERS_PER_SYNC = 512;
/** `watchBatchMaxRevs` (mvcc/watcher_group.go l.28): distinct revisions per catch-up response. */
export const WATCH_BATCH_MAX_REVISIONS = 1_000;
/** syncWatchersLoop period (mvcc/watchable_store.go): the member calls WatchHub.sync() this often. */
export const WATCH_SYNC_INTERVAL_MS = 100;
