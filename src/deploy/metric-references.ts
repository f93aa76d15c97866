// The metric names an alert rule or a dashboard panel refers to, checked against a registry: an alert on
// a metric nobody exports never fires, and nothing says so (deploy/prometheus-rules.yaml,
// deploy/grafana-dashboard.json). A histogram is referred to by its series: `_bucket`, `_sum`, `_count`.
import type { Registry } from 'prom-client';

const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

/** Every `lockstep_*` metric name in a PromQL expression, histogram series folded to their metric. */
export function metricNamesIn(expression: string): string[] {
  const names = new Set<string>();
  for (const match of expression.matchAll(/\blockstep_[a-z0-9_]+/g)) names.add(match[0]);
  return [...names];
}

/** The names in `expressions` no metric of `registry` exports, each with the expression it is in. */
export function unknownMetrics(expressions: readonly string[], registry: Registry): string[] {
  const registered = new Map(registry.getMetricsAsArray().map((metric) => [metric.name, (metric as unknown as { constructor: { name: string } }).constructor.name]));
  const unknown: string[] = [];
  for (const expression of expressions) {
    for (const name of metricNamesIn(expression)) {
      const base = name.replace(HISTOGRAM_SERIES, '');
      const known = registered.has(name) || (base !== name && registered.get(base) === 'Histogram');
      if (!known) unknown.push(`${name} (in ${expression.slice(0, 80)})`);
    }
  }
  return unknown;
}
