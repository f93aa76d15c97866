// ADR-22 on real etcd: a contended workload through an instrumented arbiter, scraped over HTTP from the
// metrics server, shows the workload in its counts and no token anywhere in the exposition text (the
// tokens the workload was granted, in decimal, hex or taken apart, and any token-sized number). The
// control puts a token into a label of a side registry and shows the same search finds it.
import { actingAs, authenticated } from '../../core/ports/caller.js';
import { Counter, Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { createRealClock } from '../clock/index.js';
import { ALICE, BOB, CAROL, FENCED, fixtureClasses, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { tokenLeaks } from '../testing/token-leak.js';
import { runTokenWorkload } from '../testing/token-workload.js';
import { type MetricsServer, createArbiterMetrics, labelProblems, startMetricsServer } from './index.js';

const world = useArbiterWorld();
const servers: MetricsServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/**
 * The exposition text with the fractional digits of float sample values cut (0.0218748742999999 is a
 * sum of seconds, not the integer 218748742999999); an integer sample value, where a token set as a
 * gauge's value would show, stays whole.
 */
function integerParts(text: string): string {
  return text.replace(/( -?\d+)\.\d+(?:e[+-]?\d+)?$/gm, '$1');
}

async function scrape(server: MetricsServer): Promise<string> {
  const response = await fetch(`http://${server.address}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

describe('metrics of a workload on real etcd', () => {
  it('count the grants and etcd requests, and carry no token', async () => {
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: fixtureClasses(), clock: createRealClock() });
    const inner = world.arbiter({ log: metrics.instrumentLog(world.log(), 'entity') });
    const arbiter = (identity: string) => metrics.instrument(actingAs(inner, authenticated(identity)));
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry: metrics.registry });
    servers.push(server);
    const keys = [world.key('metrics-a'), world.key('metrics-b')];
    const tokens = await runTokenWorkload(arbiter, { identities: [ALICE, BOB, CAROL], keys, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, rounds: 3 });
    const text = await scrape(server);
    const grants = new RegExp(`^lockstep_grants_total\\{namespace="orders",class="${FENCED.name}",tier="entity",cluster="entity-1"\\} (\\d+)$`, 'm').exec(text);
    expect(Number(grants?.[1])).toBe(tokens.length);
    expect(Number(/^lockstep_etcd_request_duration_seconds_count\{tier="entity",cluster="entity-1"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(tokens.length);
    expect(text).toMatch(/^lockstep_holds\{[^}]*\} 0$/m); // every hold was released
    expect(tokenLeaks(integerParts(text), tokens)).toEqual([]);
    for (const key of keys) expect(text).not.toContain(key.split('/')[1]);
    expect(labelProblems(metrics.registry)).toEqual([]);
  });

  it('the control: a token in a label is found by the same search', async () => {
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: fixtureClasses() });
    const inner = world.arbiter();
    const arbiter = (identity: string) => metrics.instrument(actingAs(inner, authenticated(identity)));
    const tokens = await runTokenWorkload(arbiter, { identities: [ALICE], keys: [world.key('metrics-control')], className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, rounds: 1 });
    const leaky = new Registry();
    new Counter({ name: 'lockstep_leaky_total', help: 'a metric that must never exist', labelNames: ['token'], registers: [leaky] }).inc({ token: String(tokens[0]) });
    const merged = Registry.merge([metrics.registry, leaky]);
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry: merged });
    servers.push(server);
    expect(tokenLeaks(integerParts(await scrape(server)), tokens)).not.toEqual([]);
    expect(labelProblems(merged)).toHaveLength(1);
  });
});

describe('the metrics server', () => {
  it('answers 404 outside GET /metrics', async () => {
    const metrics = createArbiterMetrics({ cluster: 'c', classes: fixtureClasses() });
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry: metrics.registry });
    servers.push(server);
    expect((await fetch(`http://${server.address}/other`)).status).toBe(404);
    expect((await fetch(`http://${server.address}/metrics`, { method: 'POST' })).status).toBe(404);
    expect(await scrape(server)).toContain('# TYPE lockstep_grants_total counter');
  });
});
