import { describe, expect, it } from 'vitest';
import { partition } from './partition.js';
import { type RunArtifact, runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function metric(artifact: RunArtifact, name: string): number {
  const value = artifact.metrics[name];
  if (value === undefined) throw new Error(`no metric ${name}`);
  return value;
}

describe('partition (leader isolated with a holder)', () => {
  it('CheckQuorum deposes the isolated leader; the holder fences at its deadline, before the majority expires its lease and grants the key again', async () => {
    const artifact = await runScenario(partition, 'default', '1', { yieldToHost });
    expect(artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    // The partition puts the leader and the first holder's arbiter on one side.
    expect(artifact.appliedFaults[0]).toMatch(new RegExp(`partition isolate-leader: ${String(artifact.parameters['oldLeader'])},arbiter-\\d,alice <->`));
    // The isolated leader renewed only while raft still said it led (etcd 3.4.23 renews without asking).
    const steppedDown = metric(artifact, 'oldLeaderSteppedDownAfterPartitionMs');
    expect(steppedDown).toBeGreaterThan(0);
    expect(steppedDown).toBeLessThan(2_500); // CheckQuorum: within two election timeouts
    expect(metric(artifact, 'lastRenewalSentAfterPartitionMs')).toBeLessThan(steppedDown);
    expect(metric(artifact, 'newLeaderAfterPartitionMs')).toBeGreaterThan(0);
    // ADR-12: fenced exactly at send time of the last good keepalive + TTL - 1 s, before the expiry.
    expect(metric(artifact, 'fenceMinusDeadlineMs')).toBeCloseTo(0, 6); // exactly, up to float rounding of virtual ms
    expect(metric(artifact, 'fenceLeadOverExpiryMs')).toBeGreaterThan(0);
    expect(metric(artifact, 'firstHolderLastStartAfterPartitionMs')).toBeLessThan(metric(artifact, 'firstHolderFencedAfterPartitionMs'));
    expect(metric(artifact, 'secondGrantAfterPartitionMs')).toBeGreaterThanOrEqual(metric(artifact, 'leaseExpiredOnMajorityAfterPartitionMs'));
    // After the heal the first holder queues again and gets the key back.
    expect(metric(artifact, 'firstHolderRegrantAfterHealMs')).toBeGreaterThan(0);
    const grants = (artifact.history as { grants: Array<{ holder: string; token: bigint; endReason?: string }> }).grants;
    expect(grants.map((g) => [g.holder.replace('spiffe://sim/', ''), g.endReason])).toEqual([
      ['alice', 'expiry'],
      ['bob', 'release'],
      ['alice', 'release'],
    ]);
    expect(grants[2]!.token).toBeGreaterThan(grants[1]!.token);
  });

  it('replays to the same trace hash from its seed and schedule', async () => {
    const first = await runScenario(partition, 'default', '3', { yieldToHost });
    const again = await runScenario(partition, 'default', '3', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
  });
});
