// `lockstep ttl --measure`'s workload on real processes, short: two holder processes of a 5 s TTL on a
// real etcd and `lockstep serve`, frozen by SIGSTOP. The controls are the model's two certain ends, so
// no figure depends on the host's speed: a 200 ms pause never fences (the slack is at least 5 - 1 - 5/3
// s), a pause longer than the TTL always does; and every process is gone after stop().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../testing/process-reaper.js';
import { loadTopology } from '../commands/quorum.js';
import { RealTopology } from './real-topology.js';
import { measureFalseFences, predictedFenceShare, ttlClassName } from './ttl-measure.js';

const TTL_SECONDS = 5;
const HOLDERS = 2;
let real: RealTopology;
const context = { signal: new AbortController().signal, progress: () => {} };

beforeAll(async () => {
  const topology = await loadTopology('regional-3');
  real = await RealTopology.start({ topology: { ...topology, clients: { ...topology.clients, count: HOLDERS } }, classes: { [ttlClassName(TTL_SECONDS)]: TTL_SECONDS }, clients: HOLDERS, say: () => {} });
}, 240_000);
afterAll(async () => {
  await real?.stop();
}, 60_000);

describe('false fences measured on real processes', () => {
  it('predicts the certain ends: none for a short pause, every one for a pause past the TTL', () => {
    expect(predictedFenceShare(TTL_SECONDS, 200)).toBe(0);
    expect(predictedFenceShare(TTL_SECONDS, 6_000)).toBe(1);
    expect(predictedFenceShare(10, 7_000)).toBeCloseTo(0.4, 2);
  });

  it('a 200 ms pause fences no holder (negative control)', async () => {
    const m = await measureFalseFences(real, { ttlSeconds: TTL_SECONDS, pauseMs: 200, pauses: 4, holders: HOLDERS }, context);
    expect(m.measured).toMatchObject({ trials: 4, successes: 0 });
    expect(m.meanPauseMs).toBeGreaterThanOrEqual(200);
    expect(m.predictedShare).toBe(0);
    expect(m.predictedWithinInterval).toBe(true);
    expect(m.unprovokedFences).toBe(0);
  }, 240_000);

  it('a pause longer than the TTL fences every holder, at its local deadline (ADR-12)', async () => {
    const m = await measureFalseFences(real, { ttlSeconds: TTL_SECONDS, pauseMs: 6_000, pauses: 2, holders: HOLDERS }, context);
    expect(m.measured).toMatchObject({ trials: 2, successes: 2 });
    expect(m.predictedShare).toBe(1);
    expect(m.fenceReasons['deadline']).toBeGreaterThanOrEqual(1);
    expect(m.measured.low).toBeGreaterThan(0); // the interval excludes "never"
  }, 240_000);

  it('stops every process it started', async () => {
    const pids = real.topology.members.map((m) => real.memberPid(m.name));
    expect(pids.every(processAlive)).toBe(true);
    await real.stop();
    expect(pids.some(processAlive)).toBe(false);
  }, 60_000);
});
