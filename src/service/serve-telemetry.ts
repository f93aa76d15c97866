// The ADR-22 telemetry of `lockstep serve`: the arbiter's server side wrapped in the metrics decorator
// (src/metrics) and the call-log decorator (src/logging), its LockLog timed for etcd latency, and the
// Prometheus exposition on --metrics-listen. Kept out of serve.ts so the command stays the flags and
// the lifecycle; every decorator passes answers through unchanged, so a grant through a telemetered
// arbiter is the grant the core made.
import { Writable } from 'node:stream';
import type { ClassLookup } from '../../core/arbiter/policy.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { type LockstepLogger, type LogLevel, createLogger, logArbiterCalls } from '../logging/index.js';
import { type ArbiterMetrics, type MetricsServer, createArbiterMetrics, startMetricsServer } from '../metrics/index.js';

export interface ServeTelemetryOptions {
  /** The cluster label of every series (ADR-22): the name of the etcd cluster this arbiter grants on. */
  readonly cluster: string;
  readonly classes: ClassLookup;
  /** JSON lines (true) or readable lines; both censor tokens (src/logging/token-redaction.ts). */
  readonly json: boolean;
  readonly level: LogLevel;
  /** Where log lines go: serve's standard error. */
  readonly write: (line: string) => void;
}

export interface ServeTelemetry {
  readonly logger: LockstepLogger;
  readonly metrics: ArbiterMetrics;
  /** The log the arbiter is given: every etcd request observed (lockstep_etcd_request_duration_seconds). */
  timedLog(log: LockLog): LockLog;
  /**
   * What the gRPC server serves: metrics outside, so a call's logged duration is not in its latency.
   * `readBack` is the arbiter below the quotas, for the metrics' own reads (instrument-arbiter.ts).
   */
  wrap(arbiter: ArbiterService, readBack?: ArbiterService): ArbiterService;
}

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function createServeTelemetry(options: ServeTelemetryOptions): ServeTelemetry {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      options.write(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({ json: options.json, level: options.level, destination });
  const metrics = createArbiterMetrics({ cluster: options.cluster, classes: options.classes });
  return {
    logger,
    metrics,
    timedLog: (log) => metrics.instrumentLog(log, 'entity'),
    wrap: (arbiter, readBack) => metrics.instrument(logArbiterCalls(arbiter, logger), readBack),
  };
}

/** Starts the exposition (GET /metrics) when --metrics-listen was given. */
export function serveMetrics(telemetry: ServeTelemetry, listen: { host: string; port: number } | undefined): Promise<MetricsServer | undefined> {
  if (listen === undefined) return Promise.resolve(undefined);
  return startMetricsServer({ host: listen.host, port: listen.port, registry: telemetry.metrics.registry });
}
