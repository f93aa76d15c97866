// Metrics of the lock service (ADR-22); see arbiter-metrics.ts for the wiring.
export { type ArbiterMetrics, type ArbiterMetricsOptions, createArbiterMetrics } from './arbiter-metrics.js';
export { labelProblems } from './label-allowlist.js';
export { type MetricsServer, type MetricsServerOptions, startMetricsServer } from './metrics-server.js';
export { ALLOWED_LABEL_NAMES, METRIC_NAMES } from './signals.js';
