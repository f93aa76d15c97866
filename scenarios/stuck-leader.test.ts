import { KEEPALIVE_TIMEOUT_MS } from '../core/ports/hedge.js';
import { describe, expect, it } from 'vitest';
import { type RunArtifact, runScenario } from './runner.js';
import { stuckLeader } from './stuck-leader.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const SEED = '1';

function check(artifact: RunArtifact, name: string) {
  const found = artifact.checks.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no check ${name} in ${artifact.checks.map((c) => c.name).join(', ')}`);
  return found;
}

function metric(artifact: RunArtifact, name: string): number {
  const value = artifact.metrics[name];
  if (value === undefined) throw new Error(`no metric ${name}`);
  return value;
}

describe('stuck-leader (etcd#15247, ADR-10)', () => {
  it('etcd 3.4.23: the stuck leader renews a lease the majority expired; the first holder keeps starting work and writing after the second grant', async () => {
    const artifact = await runScenario(stuckLeader, 'etcd-3.4.23', SEED, { yieldToHost });
    expect(artifact.asDeclared).toBe(true);
    // The log itself never overlapped: the majority revoked the lease before granting the key again.
    expect(check(artifact, 'exclusion').ok).toBe(true);
    expect(check(artifact, 'token-order').ok).toBe(true);
    expect(check(artifact, 'raft-safety').ok).toBe(true);
    // What broke is the holder's belief, and with it the unfenced ledger.
    const belief = check(artifact, 'belief');
    expect(belief.ok).toBe(false);
    const violations = belief.violations as Array<{ kind: string; involved: Array<{ holder: string }> }>;
    expect(violations.every((v) => v.kind === 'belief-after-later-grant')).toBe(true);
    expect(violations[0]?.involved.map((i) => i.holder)).toEqual(['spiffe://sim/alice', 'spiffe://sim/bob']);
    expect(check(artifact, 'fence').ok).toBe(false);
    expect(JSON.stringify(check(artifact, 'fence').violations)).toMatch(/unfenced-overlap/);
    // The mechanism: keepalives sent after the majority revoked the lease still came back OK (from the
    // stuck leader's lessor), so the library never saw a failure until the partition healed.
    expect(metric(artifact, 'keepalivesRenewedAfterMajorityExpiry')).toBeGreaterThanOrEqual(3);
    expect(metric(artifact, 'secondGrantAfterFaultMs')).toBeGreaterThan(metric(artifact, 'leaseExpiredOnMajorityAfterFaultMs'));
    expect(metric(artifact, 'firstHolderLastStartAfterSecondGrantMs')).toBeGreaterThan(1_000);
    expect(metric(artifact, 'firstHolderWritesAfterSecondGrant')).toBeGreaterThan(0);
    // No failed keepalive and no fence until after the heal (23 s after the fault).
    expect(metric(artifact, 'firstFailedKeepaliveAfterFaultMs')).toBeGreaterThan(23_000);
    expect(metric(artifact, 'firstHolderFencedAfterFaultMs')).toBeGreaterThan(23_000);
  });

  it('etcd 3.5.13: the renewal cannot confirm leadership, so the first holder fences before the majority expires its lease', async () => {
    const artifact = await runScenario(stuckLeader, 'etcd-3.5.13', SEED, { yieldToHost });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(metric(artifact, 'keepalivesRenewedAfterMajorityExpiry')).toBe(0);
    // The stuck leader's ensureLeadership ReadIndex round would take 7 s to refuse the keepalive; the
    // client gives a keepalive up at its own deadline, over every member (core/ports/hedge.ts, issue 11 L6).
    expect(metric(artifact, 'firstFailedKeepaliveAfterFaultMs')).toBeGreaterThanOrEqual(KEEPALIVE_TIMEOUT_MS);
    expect(metric(artifact, 'firstFailedKeepaliveAfterFaultMs')).toBeLessThan(7_000);
    const fencedMs = metric(artifact, 'firstHolderFencedAfterFaultMs');
    expect(fencedMs).toBeGreaterThan(0);
    expect(fencedMs).toBeLessThan(metric(artifact, 'leaseExpiredOnMajorityAfterFaultMs'));
    expect(metric(artifact, 'firstHolderLastStartAfterSecondGrantMs')).toBeLessThan(0);
    expect(metric(artifact, 'firstHolderWritesAfterSecondGrant')).toBe(0);
    expect(metric(artifact, 'secondHolderWritesAccepted')).toBeGreaterThan(0);
  });

  it('the switch changes only what the stuck leader answers: the majority side runs the same in both versions', async () => {
    const old = await runScenario(stuckLeader, 'etcd-3.4.23', SEED, { yieldToHost });
    const pinned = await runScenario(stuckLeader, 'etcd-3.5.13', SEED, { yieldToHost });
    expect(pinned.faults).toEqual(old.faults);
    for (const name of ['newLeaderAfterFaultMs', 'leaseExpiredOnMajorityAfterFaultMs']) expect(metric(pinned, name)).toBe(metric(old, name));
    // A new leader within a few election timeouts, on the majority side.
    expect(metric(old, 'newLeaderAfterFaultMs')).toBeGreaterThan(0);
    expect(metric(old, 'newLeaderAfterFaultMs')).toBeLessThan(5_000);
  });

  it('replays to the same trace hash from its seed and schedule', async () => {
    const first = await runScenario(stuckLeader, 'etcd-3.4.23', '5', { yieldToHost });
    const again = await runScenario(stuckLeader, 'etcd-3.4.23', '5', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
    expect(again.metrics).toEqual(first.metrics);
  });
});
