import { describe, expect, it } from 'vitest';
import { clockDrift, firstStageCoversDriftPpm, marginCoversDriftPpm } from './clock-drift.js';
import { type RunArtifact, runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function metric(artifact: RunArtifact, name: string): number {
  const value = artifact.metrics[name];
  if (value === undefined) throw new Error(`no metric ${name}`);
  return value;
}

describe('clock-drift (ADR-12)', () => {
  it('the drift the rules absorb: the 1 s margin covers 1/TTL, the first stage a third whatever the TTL', () => {
    expect(marginCoversDriftPpm(5)).toBe(200_000);
    expect(marginCoversDriftPpm(15)).toBe(66_667);
    expect(marginCoversDriftPpm(5, 500)).toBe(100_000);
    expect(firstStageCoversDriftPpm()).toBe(333_333);
  });

  it('within the margin (-150,000 ppm): the holder fences where its slow clock says, before the log expires its hold', async () => {
    const artifact = await runScenario(clockDrift, 'default', '1', { yieldToHost });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(metric(artifact, 'driftPpm')).toBe(-150_000);
    expect(-metric(artifact, 'driftPpm')).toBeLessThan(metric(artifact, 'marginCoversDriftPpm'));
    // The library fenced at send time + (TTL - margin) / rate: the slow clock's deadline, in true time.
    expect(metric(artifact, 'fenceMinusPredictedMs')).toBeCloseTo(0, 6); // -0 is as good as 0
    expect(metric(artifact, 'fenceLeadOverExpiryMs')).toBeGreaterThan(0);
    expect(metric(artifact, 'lastStartAfterSecondGrantMs')).toBeLessThan(0);
  });

  it('beyond the margin but within the first stage (-290,000 ppm): the deadline checker finds the fence after the expiry, yet no work starts after the second grant', async () => {
    for (const seed of ['1', '2']) {
      const artifact = await runScenario(clockDrift, 'beyond-margin-within-first-stage', seed, { yieldToHost });
      expect(artifact.asDeclared, `seed ${seed}`).toBe(true);
      expect(-metric(artifact, 'driftPpm')).toBeGreaterThan(metric(artifact, 'marginCoversDriftPpm'));
      expect(-metric(artifact, 'driftPpm')).toBeLessThan(metric(artifact, 'firstStageCoversDriftPpm'));
      expect(metric(artifact, 'fenceMinusPredictedMs')).toBeCloseTo(0, 6); // -0 is as good as 0
      // ADR-12's promise about the fence is broken: it fires after the log expired the hold, and only the deadline checker can say so...
      expect(artifact.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['deadline']);
      const deadline = artifact.checks.find((c) => c.name === 'deadline');
      const violations = (deadline?.violations ?? []) as Array<{ kind: string; involved: Array<{ holder: string }>; message: string }>;
      expect(violations.map((v) => [v.kind, v.involved.map((i) => i.holder)])).toEqual([['fence-after-expiry', ['spiffe://sim/alice']]]);
      const lateMs = -metric(artifact, 'fenceLeadOverExpiryMs');
      expect(lateMs).toBeGreaterThan(0);
      expect(Number(/, ([\d.]+) ms late,/.exec(violations[0]?.message ?? '')?.[1])).toBeCloseTo(lateMs, 0);
      // ...for canStart() had turned false at the unanswered keepalive, so nothing started after the second grant.
      expect(metric(artifact, 'lastStartAfterSecondGrantMs')).toBeLessThan(0);
      expect(metric(artifact, 'holderWritesAfterSecondGrant')).toBe(0);
    }
  });

  it('beyond both (-500,000 ppm): canStart() stays true after the second grant; the belief and fence checks say so', async () => {
    const artifact = await runScenario(clockDrift, 'drift-beyond-margin', '1', { yieldToHost });
    expect(artifact.asDeclared).toBe(true);
    expect(artifact.checks.find((c) => c.name === 'exclusion')?.ok).toBe(true); // the log was right; the holder's clock was not
    const belief = artifact.checks.find((c) => c.name === 'belief');
    expect(belief?.ok).toBe(false);
    const violations = (belief?.violations ?? []) as Array<{ kind: string; involved: Array<{ holder: string }> }>;
    expect(violations.length).toBeGreaterThan(0);
    for (const v of violations) {
      expect(v.kind).toBe('belief-after-later-grant');
      expect(v.involved.map((i) => i.holder)).toEqual(['spiffe://sim/alice', 'spiffe://sim/bob']);
    }
    expect(JSON.stringify(artifact.checks.find((c) => c.name === 'fence')?.violations)).toMatch(/unfenced-overlap/);
    expect(metric(artifact, 'lastStartAfterSecondGrantMs')).toBeGreaterThan(0);
    expect(metric(artifact, 'holderWritesAfterSecondGrant')).toBeGreaterThan(0);
    expect(metric(artifact, 'fenceLeadOverExpiryMs')).toBeLessThan(-1_000);
    expect(artifact.checks.find((c) => c.name === 'deadline')?.ok).toBe(false);
  });

  it('replays to the same trace hash from its seed and schedule', async () => {
    const first = await runScenario(clockDrift, 'drift-beyond-margin', '4', { yieldToHost });
    const again = await runScenario(clockDrift, 'drift-beyond-margin', '4', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
  });
});
