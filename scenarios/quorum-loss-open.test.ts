import { describe, expect, it } from 'vitest';
import { quorumLoss } from './quorum-loss.js';
import { type RunArtifact, runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function metric(artifact: RunArtifact, name: string): number {
  const value = artifact.metrics[name];
  if (value === undefined) throw new Error(`no metric ${name}`);
  return value;
}

describe('quorum-loss fail-open (ADR-04)', () => {
  it('grants the efficiency class from memory during the outage and ships every grant once, through two arbiter crashes; the ledger stays closed', async () => {
    const artifact = await runScenario(quorumLoss, 'fail-open', '1', { yieldToHost });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(artifact.appliedFaults.filter((f) => /arbiter-1/.test(f))).toHaveLength(2);
    // Both cache holders were granted from memory, the holders saw token 0, and the store has every grant.
    expect(metric(artifact, 'unprotectedHolders')).toBe(2);
    expect(metric(artifact, 'unprotectedBeliefSpans')).toBeGreaterThan(0);
    expect(metric(artifact, 'unprotectedGrantsStored')).toBe(metric(artifact, 'unprotectedGrantsSpooled'));
    // The shipment cut short by the crash was offered again: more records offered than stored.
    expect(metric(artifact, 'unprotectedShipments')).toBeGreaterThanOrEqual(2);
    expect(metric(artifact, 'unprotectedRecordsOffered')).toBeGreaterThan(metric(artifact, 'unprotectedGrantsStored') * 2);
    // The grants lost with the crashed arbiter's memory, and those open at recovery, ended at recovery.
    expect(metric(artifact, 'unprotectedEndedByRecovery')).toBeGreaterThan(0);
    // The correctness class failed closed in the same run: nothing of the ledger granted in the outage.
    expect(metric(artifact, 'grantsDuringOutage')).toBe(0); // from etcd, of either class
    expect(metric(artifact, 'refusedAcquiresDuringOutage')).toBeGreaterThanOrEqual(1);
    expect(metric(artifact, 'cacheEtcdGrants')).toBeGreaterThan(0); // before and after the outage, from etcd
  });

  it('negative control: a store that keeps what it is offered stores the repeated shipment twice, and the check says so', async () => {
    const artifact = await runScenario(quorumLoss, 'fail-open-no-dedupe', '1', { yieldToHost });
    const failed = artifact.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).toEqual(['unprotected']);
    expect(failed[0]?.detail).toMatch(/is stored 2 times in the audit store/);
    expect(artifact.asDeclared).toBe(true);
  });
});
