// The shape of every file in deploy/ (YAML or JSON parsed, the fields a deployment depends on present),
// and every metric an alert rule or a dashboard panel names is one the arbiter exports (src/metrics).
// The control: an expression with a misspelt metric is reported.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../metrics/index.js';
import { createSignals } from '../metrics/signals.js';
import { metricNamesIn, unknownMetrics } from './metric-references.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
const read = (file: string) => readFileSync(join(DEPLOY, file), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: { summary: string };
}
interface Panel {
  title: string;
  gridPos: object;
  targets: Array<{ expr: string }>;
}
type Json = Record<string, unknown>;

const rules = (): Rule[] => (parse(read('prometheus-rules.yaml')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups.flatMap((g) => g.rules);
const dashboard = () => JSON.parse(read('grafana-dashboard.json')) as { title: string; uid: string; panels: Panel[]; templating: { list: Array<{ query: unknown }> } };

describe('deploy/arbiter-deployment.yaml', () => {
  const documents = parseAllDocuments(read('arbiter-deployment.yaml')).map((d) => d.toJS() as Json);
  const deployment = documents.find((d) => d['kind'] === 'Deployment') as { spec: { template: { metadata: { annotations: Record<string, string> }; spec: { containers: Array<{ args: string[]; ports: Array<{ name: string; containerPort: number }>; readinessProbe: { exec: { command: string[] } }; livenessProbe: { exec: { command: string[] } } }> } } } };

  it('holds a Deployment, a headless Service and a PodDisruptionBudget', () => {
    expect(documents.map((d) => d['kind'])).toEqual(['Deployment', 'ConfigMap', 'Service', 'PodDisruptionBudget']);
    expect((documents[2] as { spec: { clusterIP: string } }).spec.clusterIP).toBe('None'); // ring-hash needs the pods
  });

  it('runs lockstep serve with mTLS, class and grant directories, metrics, and gRPC health probes on its listener', () => {
    const container = deployment.spec.template.spec.containers[0];
    const args = container?.args ?? [];
    expect(args[0]).toBe('serve');
    for (const flag of ['--endpoints=', '--classes=', '--grants=', '--listen=', '--tls-cert=', '--tls-key=', '--client-ca=', '--metrics-listen=']) {
      expect(args.some((a) => a.startsWith(flag)), flag).toBe(true);
    }
    expect(args).toContain('--json');
    const port = (flag: string) => Number(args.find((a) => a.startsWith(flag))?.split(':').at(-1));
    const ports = Object.fromEntries((container?.ports ?? []).map((p) => [p.name, p.containerPort]));
    expect(ports['grpc']).toBe(port('--listen='));
    expect(ports['metrics']).toBe(port('--metrics-listen='));
    expect(Number(deployment.spec.template.metadata.annotations['prometheus.io/port'])).toBe(port('--metrics-listen='));
    for (const probe of [container?.readinessProbe, container?.livenessProbe]) {
      // The image answers its own probe: its entrypoint's program, `lockstep health` (src/commands/health.ts).
      expect(probe?.exec.command.slice(0, 3)).toEqual(['/usr/bin/node', '/app/bin/lockstep.mjs', 'health']);
      expect(probe?.exec.command).toContain(`--arbiter=127.0.0.1:${port('--listen=')}`);
      for (const flag of ['--tls-cert=', '--tls-key=']) {
        expect(probe?.exec.command.find((a) => a.startsWith(flag))?.slice(flag.length)).toBe(args.find((a) => a.startsWith(flag))?.slice(flag.length));
      }
    }
  });
});

describe('deploy/envoy.yaml', () => {
  const envoy = parse(read('envoy.yaml')) as { static_resources: { listeners: Json[]; clusters: Array<{ name: string; lb_policy?: string }> } };

  it('routes by ring-hash on the key header to the arbiters (ADR-18), over HTTP/2 with client certificates required', () => {
    const arbiters = envoy.static_resources.clusters.find((c) => c.name === 'lockstep_arbiter');
    expect(arbiters?.lb_policy).toBe('RING_HASH');
    const text = JSON.stringify(envoy);
    const hashPolicies = [...text.matchAll(/"hash_policy":\[(.*?)\]/g)].map((m) => m[1]);
    expect(hashPolicies).toEqual([expect.stringContaining('"header_name":"x-lockstep-key"')]);
    expect(text).toContain('"codec_type":"HTTP2"');
    expect(text).toContain('"require_client_certificate":true');
    expect(text).toContain('"cluster":"lockstep_arbiter"');
  });
});

describe('deploy/prometheus-rules.yaml and deploy/grafana-dashboard.json', () => {
  it('every alert has an expression, a severity and a summary, and its labels are ADR-22\'s', () => {
    const all = rules();
    expect(all.length).toBeGreaterThan(0);
    for (const rule of all) {
      expect(rule.alert).toMatch(/^Lockstep[A-Z]\w+$/);
      expect(rule.expr.length, rule.alert).toBeGreaterThan(0);
      expect(rule.labels['severity'], rule.alert).toMatch(/^(page|ticket)$/);
      expect(rule.annotations.summary.length, rule.alert).toBeGreaterThan(0);
      for (const [, label] of rule.expr.matchAll(/by \(([^)]*)\)/g)) {
        for (const name of (label ?? '').split(',').map((l) => l.trim())) expect(['le', 'namespace', 'class', 'tier', 'cluster'], `${rule.alert}: by ${name}`).toContain(name);
      }
    }
  });

  it('every panel has a place and a query', () => {
    const board = dashboard();
    expect(board.uid).toBe('lockstep-service');
    for (const panel of board.panels) {
      expect(panel.gridPos, panel.title).toBeDefined();
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    }
  });

  it('every metric an alert or a panel names exists in the registry, and the dashboard shows every signal', () => {
    const { registry } = createSignals();
    const board = dashboard();
    const expressions = [...rules().map((r) => r.expr), ...board.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...board.templating.list.flatMap((v) => (typeof v.query === 'string' ? [v.query] : []))];
    expect(unknownMetrics(expressions, registry)).toEqual([]);
    const shown = new Set(board.panels.flatMap((p) => p.targets.flatMap((t) => metricNamesIn(t.expr))).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect(Object.values(METRIC_NAMES).filter((name) => !shown.has(name))).toEqual([]);
  });

  it('the control: a misspelt metric, or a counter read as a histogram, is reported', () => {
    const { registry } = createSignals();
    expect(unknownMetrics(['rate(lockstep_grant_latency_ms_bucket[5m])', 'lockstep_grants_total_bucket', 'lockstep_sealed'], registry)).toEqual([
      expect.stringMatching(/^lockstep_grant_latency_ms_bucket /),
      expect.stringMatching(/^lockstep_grants_total_bucket /),
    ]);
  });
});
