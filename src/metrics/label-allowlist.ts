// ADR-22's lint, as code: "a CI lint fails any metric definition that adds a key label". Reads the label
// names every metric of a registry declares, so a metric added later without care fails the test beside
// this file, not a Prometheus server a week after it shipped.
import type { Registry } from 'prom-client';
import { ALLOWED_LABEL_NAMES } from './signals.js';

/** One sentence per label outside the allow-list, naming the metric and the fix; empty when all is well. */
export function labelProblems(registry: Registry, allowed: readonly string[] = ALLOWED_LABEL_NAMES): string[] {
  const problems: string[] = [];
  for (const metric of registry.getMetricsAsArray()) {
    // prom-client keeps the declared label names on the metric object; it has no public getter for them.
    const labelNames = (metric as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
    for (const label of labelNames) {
      if (!allowed.includes(label)) {
        problems.push(`metric ${metric.name} has label "${label}"; lockstep metrics may carry only ${allowed.join(', ')} (ADR-22): per-key questions go to inspect and audit`);
      }
    }
  }
  return problems;
}
