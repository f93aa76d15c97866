import { describe, expect, it } from 'vitest';
import { rendezvousPick } from '../core/shards/rendezvous.js';
import { type RunArtifact, runScenario } from './runner.js';
import { shardMove } from './shard-move.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const run = (variant: string, seed = '1'): Promise<RunArtifact> => runScenario(shardMove, variant, seed, { yieldToHost });
const check = (artifact: RunArtifact, name: string) => artifact.checks.find((c) => c.name === name);
const failed = (artifact: RunArtifact): string[] => artifact.checks.filter((c) => !c.ok).map((c) => c.name);
type PerRange = Record<string, { from: string; holdsWaitMs: number; unavailableMs: number; firstGrantOnDestinationMs: number }>;

describe('shard-move (ADR-09)', () => {
  it('drain-advance-flip: only the ranges rendezvous homes to the new shard move; tokens keep rising and one shard holds a key at a time', async () => {
    const artifact = await run('drain-advance-flip');
    expect(failed(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    const moved = artifact.parameters['movedRanges'] as string[];
    // Exactly the keys whose top score changes to shard-c, and none between the old shards.
    const keys = Array.from({ length: 12 }, (_, i) => `orders/c-${i + 1}`);
    expect(moved).toEqual(keys.filter((k) => rendezvousPick(['shard-a', 'shard-b', 'shard-c'], k) === 'shard-c'));
    expect(moved.every((k) => rendezvousPick(['shard-a', 'shard-b'], k) !== 'shard-c')).toBe(true);
    const m = artifact.metrics;
    expect(m['movedFraction']).toBeGreaterThan(0.2);
    expect(m['movedFraction']).toBeLessThan(0.5); // about 1/3
    expect(m['destinationEpoch']).toBeGreaterThan(m['sourceEpoch'] ?? Infinity);
    expect(m['epochAdvances']).toBe(1);
    expect(m['movedKeysTokenFell']).toBe(0);
    expect(m['movedKeysTokenRose']).toBeGreaterThan(0);
    expect(m['refusedDrainingOnUnmovedKeys']).toBe(0); // only moving ranges were ever refused
    expect(m['sourceGrantsAfterFlip']).toBe(0);
    expect(m['writesRejectedStale']).toBe(0);
    expect(m['grantsOnNewShard']).toBeGreaterThan(0);
    // Each range is unavailable from its drain until its flip; a range with a hold waits for it to end.
    const perRange = artifact.parameters['perRange'] as PerRange;
    expect(Object.keys(perRange)).toEqual(moved);
    for (const range of Object.values(perRange)) expect(range.unavailableMs).toBeGreaterThanOrEqual(range.holdsWaitMs);
    expect(m['unavailableMsMax']).toBe(Math.max(...Object.values(perRange).map((r) => r.unavailableMs)));
    expect(m['unavailableMsMax']).toBeLessThan(5_000); // no range waited for a TTL: its holders released
    expect(check(artifact, 'cross-shard-exclusion')?.detail).toMatch(/in 3 clusters compared in true time/);
  });

  it('controller-crashes: the controller dies right after each step of each range and is run again; core resumes the move with one advance and the same safety (issue 19)', async () => {
    const artifact = await run('controller-crashes');
    expect(failed(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    const m = artifact.metrics;
    const moved = artifact.parameters['movedRanges'] as string[];
    expect(m['controllerCrashes']).toBe(moved.length * 5); // pinned, draining, drained, advanced, flipped
    expect(m['epochAdvances']).toBe(1); // a resumed move does not advance again
    expect(m['destinationEpoch']).toBeGreaterThan(m['sourceEpoch'] ?? Infinity);
    expect([m['movedKeysTokenFell'], m['sourceGrantsAfterFlip']]).toEqual([0, 0]);
    expect(artifact.parameters['moveStoppedAt']).toBeUndefined();
    // The same ranges move as without crashes.
    expect(moved).toEqual((await run('drain-advance-flip')).parameters['movedRanges']);
  });

  it('no-epoch-advance: a moved key is granted on the new shard with a token below its last one on the source', async () => {
    const artifact = await run('no-epoch-advance');
    expect(artifact.asDeclared).toBe(true);
    expect(failed(artifact)).toContain('token-order');
    expect(check(artifact, 'exclusion')?.ok).toBe(true);
    expect(check(artifact, 'cross-shard-exclusion')?.ok).toBe(true); // the drain still kept one holder per key
    const moved = artifact.parameters['movedRanges'] as string[];
    const violations = check(artifact, 'token-order')?.violations as readonly { kind: string; key: string; message: string }[];
    expect(violations.every((v) => moved.includes(v.key))).toBe(true);
    expect(violations.some((v) => v.kind === 'token-not-increasing' && /in cluster shard-c/.test(v.message))).toBe(true);
    const m = artifact.metrics;
    expect([m['sourceEpoch'], m['destinationEpoch'], m['epochAdvances']]).toEqual([1, 1, 0]);
    expect(m['movedKeysTokenFell']).toBeGreaterThan(0);
    expect(m['movedKeysTokenRose']).toBe(0);
    // The new shard's revisions are far below the old ones': that is why the advance exists.
    expect(m['firstDestinationTokenOfMovedKeysMinRevision']).toBeLessThan(m['lastSourceTokenOfMovedKeysMaxRevision'] ?? 0);
    expect(m['writesRejectedStale']).toBeGreaterThan(0); // the fenced resource refused the moved keys' lower tokens
  });

  it('no-drain: a long job holds a moving key across its flip and the destination grants it to a late job, which only a check across shards sees', async () => {
    const artifact = await run('no-drain');
    expect(artifact.asDeclared).toBe(true);
    expect(failed(artifact)).toContain('cross-shard-exclusion');
    expect(check(artifact, 'exclusion')?.ok).toBe(true); // per (cluster, key), each log alone is fine
    const straddle = artifact.parameters['straddle'] as { key: string; from: string; longGrantedAtMs: number; lateAskedAtMs: number; lateOutcome: string; longReleasedAtMs: number };
    // The long job took the first moving key before any worker started and held it until the late job had its answer.
    expect(straddle.key).toBe((artifact.parameters['movedRanges'] as string[])[0]);
    expect(straddle.longGrantedAtMs).toBeLessThanOrEqual(0);
    expect(straddle.lateOutcome).toBe('granted');
    expect(straddle.longReleasedAtMs).toBeGreaterThan(straddle.lateAskedAtMs);
    const violations = check(artifact, 'cross-shard-exclusion')?.violations as readonly { kind: string; key: string; message: string }[];
    const straddled = violations.find((v) => v.key === straddle.key);
    expect(straddled?.kind).toBe('cross-cluster-overlap');
    expect(straddled?.message).toMatch(new RegExp(`long-job held it on ${straddle.from} .* but shard-c granted it to spiffe://sim/(late-job|w\\d)`));
    expect(artifact.metrics['refusedDraining']).toBe(0);
  });

  it('replays to the same trace hash from its seed', async () => {
    const first = await run('drain-advance-flip', '3');
    const again = await runScenario(shardMove, 'drain-advance-flip', '3', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
    expect(again.metrics).toEqual(first.metrics);
  });
});
