// The ADR-22 signals as Prometheus metrics: one definition of every name, help text and label set, so the
// alert rules and the dashboard in deploy/ can be checked against it (deploy/deploy.test.ts). Names follow
// the Prometheus conventions STYLE.md asks for: `lockstep_` prefix, base units in the name (`_seconds`,
// `_total`), histograms for latency. Labels are namespace, class, tier and cluster only (ADR-22): a key
// or a token as a label value would multiply the series by four million keys a day, and publish
// capabilities to everyone who can read a dashboard. label-allowlist.ts holds that rule; its test reads
// every metric of a registry built here.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The only label names any lockstep metric may carry (ADR-22). */
export const ALLOWED_LABEL_NAMES = ['namespace', 'class', 'tier', 'cluster'] as const;
export type AllowedLabel = (typeof ALLOWED_LABEL_NAMES)[number];

const CLASS_LABELS = ['namespace', 'class', 'tier', 'cluster'] as const satisfies readonly AllowedLabel[];
const LOG_LABELS = ['tier', 'cluster'] as const satisfies readonly AllowedLabel[];
const CLUSTER_LABELS = ['cluster'] as const satisfies readonly AllowedLabel[];

export const METRIC_NAMES = {
  grantLatency: 'lockstep_grant_latency_seconds',
  acquires: 'lockstep_acquires_total',
  grants: 'lockstep_grants_total',
  unprotectedGrants: 'lockstep_unprotected_grants_total',
  contended: 'lockstep_contended_total',
  holds: 'lockstep_holds',
  holdDuration: 'lockstep_hold_duration_seconds',
  expiriesWithoutRelease: 'lockstep_expiries_without_release_total',
  keepaliveFailures: 'lockstep_keepalive_failures_total',
  waiters: 'lockstep_waiters',
  sealed: 'lockstep_sealed',
  etcdRequestLatency: 'lockstep_etcd_request_duration_seconds',
} as const;

/** Grant latency buckets (s): ADR-18 budgets 1-3 ms for the hop; a grant after a wait can take minutes. */
const GRANT_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Hold durations (s): from a short critical section to the longest hold an owning team should hear of. */
const HOLD_BUCKETS_SECONDS = [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400];
/** etcd requests (s): an fsync-bound txn takes milliseconds; etcd's own request timeout is 7 s. */
const ETCD_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 7];

export interface ArbiterSignals {
  readonly registry: Registry;
  readonly grantLatency: Histogram<(typeof CLASS_LABELS)[number]>;
  readonly acquires: Counter<(typeof CLASS_LABELS)[number]>;
  readonly grants: Counter<(typeof CLASS_LABELS)[number]>;
  readonly unprotectedGrants: Counter<(typeof CLASS_LABELS)[number]>;
  readonly contended: Counter<(typeof CLASS_LABELS)[number]>;
  readonly holds: Gauge<(typeof CLASS_LABELS)[number]>;
  readonly holdDuration: Histogram<(typeof CLASS_LABELS)[number]>;
  readonly expiriesWithoutRelease: Counter<(typeof CLASS_LABELS)[number]>;
  readonly keepaliveFailures: Counter<(typeof CLASS_LABELS)[number]>;
  readonly waiters: Gauge<(typeof CLASS_LABELS)[number]>;
  readonly sealed: Gauge<(typeof CLUSTER_LABELS)[number]>;
  readonly etcdRequestLatency: Histogram<(typeof LOG_LABELS)[number]>;
}

/** Every lockstep metric, registered on `registry` (a new one by default, never prom-client's global). */
export function createSignals(registry = new Registry()): ArbiterSignals {
  const registers = [registry];
  return {
    registry,
    grantLatency: new Histogram({ name: METRIC_NAMES.grantLatency, help: 'Time from an acquire reaching the arbiter to its grant, time in line included.', labelNames: CLASS_LABELS, buckets: GRANT_BUCKETS_SECONDS, registers }),
    acquires: new Counter({ name: METRIC_NAMES.acquires, help: 'Acquires answered (granted or refused), the denominator of the contention ratio.', labelNames: CLASS_LABELS, registers }),
    grants: new Counter({ name: METRIC_NAMES.grants, help: 'Acquires granted (re-entered grants included).', labelNames: CLASS_LABELS, registers }),
    unprotectedGrants: new Counter({ name: METRIC_NAMES.unprotectedGrants, help: 'Grants made from the arbiter\'s memory with token 0 while no etcd majority answered, for classes that declared onQuorumLoss: open (ADR-04); re-entered ones not counted again. Each is on the reconciliation list (lockstep audit unprotected).', labelNames: CLASS_LABELS, registers }),
    contended: new Counter({ name: METRIC_NAMES.contended, help: 'Acquires that found the key held and were refused: contended, or the wait ended (wait-timeout).', labelNames: CLASS_LABELS, registers }),
    holds: new Gauge({ name: METRIC_NAMES.holds, help: 'Holds granted through this arbiter and not yet ended.', labelNames: CLASS_LABELS, registers }),
    holdDuration: new Histogram({ name: METRIC_NAMES.holdDuration, help: 'How long holds lasted, from grant to release or expiry.', labelNames: CLASS_LABELS, buckets: HOLD_BUCKETS_SECONDS, registers }),
    expiriesWithoutRelease: new Counter({ name: METRIC_NAMES.expiriesWithoutRelease, help: 'Holds that ended with their session lease (or a force-release) instead of a release: a client-health signal for the owning team (ADR-22).', labelNames: CLASS_LABELS, registers }),
    keepaliveFailures: new Counter({ name: METRIC_NAMES.keepaliveFailures, help: 'Session keepalives that failed, counted once per class the session held (namespace "_none" for a session holding nothing).', labelNames: CLASS_LABELS, registers }),
    waiters: new Gauge({ name: METRIC_NAMES.waiters, help: 'Acquires waiting in line now.', labelNames: CLASS_LABELS, registers }),
    sealed: new Gauge({ name: METRIC_NAMES.sealed, help: '1 while the arbiter is sealed (the log was restored or replaced, ADR-03), else 0.', labelNames: CLUSTER_LABELS, registers }),
    etcdRequestLatency: new Histogram({ name: METRIC_NAMES.etcdRequestLatency, help: 'Latency of the arbiter\'s requests to etcd (txn, range, lease calls, watch creation), failures included.', labelNames: LOG_LABELS, buckets: ETCD_BUCKETS_SECONDS, registers }),
  };
}
