// One arbiter's metrics (ADR-22): its registry, the decorator over its server side (ArbiterService), and the decorator over
// the LockLog it is given (etcd request latency). Wiring, in `lockstep serve` or `lockstep lock`:
//
//   const metrics = createArbiterMetrics({ cluster: 'entity-1', classes });
//   const arbiter = metrics.instrument(new Arbiter({ ...options, log: metrics.instrumentLog(log, 'entity') }));
//   const server = await startMetricsServer({ host: '127.0.0.1', port: 9464, registry: metrics.registry });
import type { ClassLookup } from '../../core/arbiter/policy.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import type { Clock } from '../../core/ports/clock.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { Registry } from 'prom-client';
import { createRealClock } from '../clock/index.js';
import { instrumentArbiter } from './instrument-arbiter.js';
import { instrumentLockLog } from './instrument-log.js';
import { type ArbiterSignals, createSignals } from './signals.js';

export interface ArbiterMetricsOptions {
  /** The cluster label: the etcd cluster's name in this deployment. */
  readonly cluster: string;
  /** Where labels come from: only declared classes label their own series. */
  readonly classes: ClassLookup;
  /** Default: the real clock. */
  readonly clock?: Clock;
}

export interface ArbiterMetrics {
  readonly registry: Registry;
  readonly signals: ArbiterSignals;
  /** `readBack`: where the hold book's confirming reads go, when `api` counts or logs calls as the caller's. */
  instrument(api: ArbiterService, readBack?: ArbiterService): ArbiterService;
  instrumentLog(log: LockLog, tier: 'coord' | 'entity'): LockLog;
}

export function createArbiterMetrics(options: ArbiterMetricsOptions): ArbiterMetrics {
  const signals = createSignals();
  const clock = options.clock ?? createRealClock();
  return {
    registry: signals.registry,
    signals,
    instrument: (api, readBack) => instrumentArbiter(api, { signals, classes: options.classes, cluster: options.cluster, clock, ...(readBack === undefined ? {} : { readBack }) }),
    instrumentLog: (log, tier) => instrumentLockLog(log, signals, { tier, cluster: options.cluster }, clock),
  };
}
