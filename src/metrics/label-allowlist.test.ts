// ADR-22: no lockstep metric may carry a key or token label. The check reads the declared label names
// of every metric in the registry, and a negative control shows it fails on a metric that adds one.
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { labelProblems } from './label-allowlist.js';
import { METRIC_NAMES, createSignals } from './signals.js';

describe('metric labels (ADR-22)', () => {
  it('every lockstep metric carries only namespace, class, tier and cluster labels', () => {
    const { registry } = createSignals();
    expect(labelProblems(registry)).toEqual([]);
    // The check has something to read: every signal is registered, and each declares labels.
    const registered = registry.getMetricsAsArray().map((metric) => metric.name);
    expect(registered.sort()).toEqual(Object.values(METRIC_NAMES).sort());
    for (const metric of registry.getMetricsAsArray()) {
      expect((metric as unknown as { labelNames: string[] }).labelNames.length, metric.name).toBeGreaterThan(0);
    }
  });

  it('the control: a metric with a key label or a token label is named, with its label', () => {
    const { registry } = createSignals();
    new Counter({ name: 'lockstep_grants_by_key_total', help: 'a mistake', labelNames: ['namespace', 'key'], registers: [registry] });
    const other = new Registry();
    new Counter({ name: 'lockstep_tokens_total', help: 'a worse one', labelNames: ['token'], registers: [other] });
    expect(labelProblems(registry)).toEqual([expect.stringMatching(/^metric lockstep_grants_by_key_total has label "key"/)]);
    expect(labelProblems(other)).toEqual([expect.stringMatching(/^metric lockstep_tokens_total has label "token"/)]);
  });

});
