import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../cli.js';
import { artifactFileName, artifactText, checkArtifact } from './artifact-file.js';
import { createWorkbenchApi } from './workbench-api.js';

const api = createWorkbenchApi(() => new Promise((done) => setImmediate(done)));

describe('the worker API, run in node', () => {
  it('lists the scenarios with their variants, expectations and descriptions', () => {
    const pause = api.listScenarios().find((s) => s.name === 'pause-test');
    expect(pause?.variants.map((v) => [v.name, v.expect])).toEqual([['fenced', 'pass'], ['unfenced', 'violation']]);
    expect(pause?.variants.every((v) => v.description.length > 0)).toBe(true);
  });

  it('returns a plain-JSON artifact (tokens as decimal strings) that a page can save and load back', async () => {
    const artifact = await api.runScenario({ scenario: 'pause-test', variant: 'unfenced', seed: '1' });
    expect(() => structuredClone(artifact)).not.toThrow();
    expect(JSON.stringify(artifact)).toContain('"token":"');
    expect(checkArtifact(JSON.parse(JSON.stringify(artifact)), 'saved').scenario).toBe('pause-test');
    expect(artifact.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['fence']);
  });

  it('replays an artifact to the same trace hash, and reports a different one when the saved hash is not it', async () => {
    const artifact = await api.runScenario({ scenario: 'pause-test', variant: 'fenced', seed: '2' });
    const replayed = await api.replayArtifact(artifact);
    expect([replayed.comparison.run, replayed.comparison.recordMatches]).toEqual(['same-trace', true]);
    expect(replayed.artifact.traceHash).toBe(artifact.traceHash);
    const tampered = await api.replayArtifact({ ...artifact, traceHash: '0000000000000000' });
    expect([tampered.comparison.run, tampered.comparison.recordedTraceHash]).toEqual(['same-history', '0000000000000000']);
    // The comparison lockstep replay makes: an edited verdict is flagged although the hash matches, and the replay's is returned.
    const forged = await api.replayArtifact({ ...artifact, ok: false, checks: artifact.checks.map((c) => (c.name === 'fence' ? { ...c, ok: false } : c)) });
    expect([forged.comparison.run, forged.comparison.recordMatches, forged.comparison.recordedVerdict, forged.artifact.ok]).toEqual(['same-trace', false, 'VIOLATION: fence', true]);
  });

  it("shows a variant's own schedule and processes, which a run given no schedule uses", async () => {
    const own = await api.defaultSchedule({ scenario: 'pause-test', variant: 'fenced', seed: '1' });
    expect(own.faults.map((f) => (f as { kind: string }).kind)).toEqual(['pause', 'resume']);
    expect(own.processes.filter((p) => p.role === 'client').map((p) => p.name)).toEqual(['alice', 'bob']);
    const run = await api.runScenario({ scenario: 'pause-test', variant: 'fenced', seed: '1' });
    expect(run.faults).toEqual(own.faults);
    expect(run.replay).toBe('lockstep run pause-test --seed 1');
  });

  it('runs an edited schedule: the artifact keeps it, the trace differs, and its replay command (lockstep replay FILE) reproduces it', async () => {
    const own = await api.runScenario({ scenario: 'pause-test', variant: 'fenced', seed: '1' });
    // A pause shorter than the 5 s TTL: the lease survives, nobody is fenced.
    const edited = [{ atMs: 1000, kind: 'pause', target: 'alice' }, { atMs: 3000, kind: 'resume', target: 'alice' }];
    const run = await api.runScenario({ scenario: 'pause-test', variant: 'fenced', seed: '1', faults: edited });
    expect(run.faults).toEqual(edited);
    expect(run.traceHash).not.toBe(own.traceHash);
    expect(run.replay).toBe(`lockstep replay ${artifactFileName(run)}`);
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-web-replay-'));
    try {
      const file = join(dir, artifactFileName(run));
      await writeFile(file, artifactText(run));
      const out: string[] = [];
      expect(await main(['replay', file, '--json'], { out: (t) => void out.push(t), err: (t) => void out.push(t) })).toBe(0);
      expect(JSON.parse(out.at(-1) ?? '{}')).toMatchObject({ sameTraceHash: true, traceHash: run.traceHash });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // A replay in the page keeps the schedule; its command is its own (the page builds what it shows, src/web/replay-command.ts).
    const replayed = await api.replayArtifact({ ...run, replay: 'lockstep replay x.json; rm -rf ~' });
    expect([replayed.comparison.run, replayed.artifact.faults, replayed.artifact.replay]).toEqual(['same-trace', edited, run.replay]);
  });

  it('refuses a malformed schedule before simulating, naming the fault and field', async () => {
    await expect(api.runScenario({ scenario: 'pause-test', variant: 'fenced', seed: '1', faults: [{ atMs: 1000, kind: 'pause' }] })).rejects.toThrow(/fault schedule: faults\[0\]\.target is missing/);
  });

  it.each([
    [{ scenario: 'no-such', variant: 'fenced', seed: '1' }, /no scenario "no-such"/],
    [{ scenario: 'pause-test', variant: 'nope', seed: '1' }, /has no variant "nope"/],
    [{ scenario: 'pause-test', variant: 'fenced', seed: '  ' }, /seed " {2}" is not a seed; give a whole number from 0 to/],
    [{ scenario: 'pause-test', variant: 'fenced', seed: 'abc' }, /seed "abc" is not a seed/],
  ])('refuses %j, naming the input', async (request, message) => {
    await expect(api.runScenario(request)).rejects.toThrow(message);
  });

  it('refuses to replay something that is not an artifact, naming the field', async () => {
    await expect(api.replayArtifact({ format: 'lockstep.run/1', scenario: 'pause-test' })).rejects.toThrow(/variant must be a non-empty string/);
  });

  it('sweeps TTLs: a crashed holder blocks its key at least two thirds of a TTL, and keepalive load falls with TTL', async () => {
    const reports: string[] = [];
    const curve = await api.ttlCurve({ sessions: 30, ttlFromSeconds: 5, ttlToSeconds: 10, runs: 1, pauses: 'gc', minutesPerRun: 2 }, (r) => reports.push(r.label));
    expect(curve.points.map((p) => p.ttlSeconds)).toEqual([5, 10]);
    const [short, long] = curve.points;
    expect(long!.livenessBoundMs).toBeGreaterThan(short!.livenessBoundMs);
    expect(long!.keepalivesPerSecond).toBeLessThan(short!.keepalivesPerSecond);
    for (const p of curve.points) {
      expect(p.reacquireLeaderChangeMsP50).not.toBeNull();
      // The crash comes at most one keepalive period (TTL/3) after a renewal, so the lease outlives it by
      // at least 2/3 TTL; a leader change can at worst restart the TTL once (liveness.ts lateLeaderChangeMs).
      expect(p.reacquireLeaderChangeMsP50!).toBeGreaterThanOrEqual((2 / 3) * p.ttlSeconds * 1_000);
      expect(p.reacquireLeaderChangeMsP50!).toBeLessThanOrEqual(p.ttlSeconds * 1_000 + p.livenessBoundMs);
      expect(p.falseFenceUpper95PerSessionHour).toBeGreaterThanOrEqual(p.falseFencePerSessionHour!);
    }
    expect(reports.some((r) => r.includes('TTL 10 s'))).toBe(true);
  });

  it.each([
    [{ ttlFromSeconds: 3 }, /TTL from 3 must be .* range 5\.\.300/],
    [{ ttlToSeconds: 4 }, /TTL to 4 must be/],
    [{ sessions: 0 }, /sessions 0 must be/],
    [{ runs: 11 }, /runs 11 must be/],
  ])('refuses a TTL sweep with %j, naming the input', async (change, message) => {
    await expect(api.ttlCurve({ sessions: 10, ttlFromSeconds: 5, ttlToSeconds: 30, runs: 1, pauses: 'none', ...change })).rejects.toThrow(message);
  });

  it('prices a topology: the simulated latencies sit at or above the analytic floor, and split by the member that led', async () => {
    const [regional] = await api.quorumPricing({ topologies: ['regional-3'], samplesPerRun: 20, runs: 1 });
    const all = regional!.simulated;
    expect(all.samplesMs).toHaveLength(20);
    expect([...all.samplesMs].sort((a, b) => a - b)).toEqual(all.samplesMs);
    expect(all.p50Ms).toBeGreaterThanOrEqual(regional!.floorMs * 0.9);
    expect(all.p50Ms).toBeLessThanOrEqual(all.p999Ms);
    // One run: the first member led it, the others have no samples of their own.
    expect(regional!.byLeader.map((l) => [l.leader, l.runs, l.simulated?.samplesMs.length ?? 0])).toEqual([['etcd-a', 1, 20], ['etcd-b', 0, 0], ['etcd-c', 0, 0]]);
    expect(regional!.byLeader[0]!.endpoints).toEqual([regional!.setting.homeEndpoint]);
    expect(api.topologyPresets()).toEqual(['regional-3', 'coord-5-2-2-1', 'stretched-3-region']);
  });

  it('prices stretched-3-region per leader placement: a leader in the clients\' region is much faster than one across the ocean', async () => {
    const [stretched] = await api.quorumPricing({ topologies: ['stretched-3-region'], samplesPerRun: 30 });
    const p99 = Object.fromEntries(stretched!.byLeader.map((l) => [l.region, l.simulated!.p99Ms]));
    expect(p99['us-east']! * 2).toBeLessThan(p99['eu-west']!);
    // Unpinned, the tail is the far leader's: the overall p99 is no better than eu-west's runs give.
    expect(stretched!.simulated.p99Ms).toBeGreaterThan(p99['us-west']!);
    for (const l of stretched!.byLeader) expect(l.simulated!.p99Ms).toBeLessThanOrEqual(l.loadedP99BoundMs);
  });

  it('refuses an unknown topology before simulating anything', async () => {
    await expect(api.quorumPricing({ topologies: ['regional-3', 'moon-base'], samplesPerRun: 20 })).rejects.toThrow(/topology "moon-base" is not a preset; choose from regional-3/);
  });
});
