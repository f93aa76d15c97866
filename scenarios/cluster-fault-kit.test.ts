import { describe, expect, it } from 'vitest';
import { LockError } from '../core/lock-error.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import { Kernel } from '../sim/kernel/kernel.js';
import { World } from '../sim/world/world.js';
import {
  type CallRecord,
  LEDGER_CLASS,
  LeaderLog,
  fenceTiming,
  fencedAtMs,
  lastGoodRenewalSentMs,
  ledgerPolicy,
  present,
  probedClient,
  recordingApi,
  runHolderWithRetries,
  sessionsFencedBeforeFirstKeepalive,
  settleLeaderOn,
} from './cluster-fault-kit.js';
import { DeadlineProbe } from './deadline-probe.js';
import { runHolder } from './holder.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

const call = (method: CallRecord['method'], sentMs: number, answeredMs: number, outcome = 'ok'): CallRecord => ({ method, sentMs, answeredMs, outcome });

describe('the fault scenarios kit', () => {
  it('records each lock.v1 call with its send and answer times and its outcome', async () => {
    const kernel = new Kernel({ seed: 'kit', yieldToHost });
    const api = {
      keepAlive: () => kernel.sleep(30).then(() => ({ ttlSeconds: 5 })),
      acquire: () => kernel.sleep(10).then(() => Promise.reject(new LockError('contended', 'held'))),
    } as unknown as ArbiterApi;
    const calls: CallRecord[] = [];
    const recorded = recordingApi(api, kernel, calls);
    const done = Promise.all([recorded.keepAlive({ identity: 'a', sessionId: 1n } as never), recorded.acquire({} as never).catch((e: unknown) => e)]);
    await kernel.runUntil(100);
    const [, refused] = await done;
    expect(refused).toBeInstanceOf(LockError); // the error still reaches the caller
    expect(calls).toEqual([call('acquire', 0, 10, 'contended'), call('keepAlive', 0, 30)]);
  });

  it('reads fences and renewals off the calls: the deadline counts from the last good send, the open included', () => {
    const calls = [call('openSession', 100, 110), call('keepAlive', 1_800, 1_805), call('keepAlive', 3_500, 3_520), call('keepAlive', 5_200, 12_200, 'unavailable'), call('closeSession', 7_500, 15_500, 'indeterminate')];
    expect(fencedAtMs(calls)).toBe(7_500);
    expect(lastGoodRenewalSentMs(calls, 7_500)).toBe(3_500);
    expect(lastGoodRenewalSentMs(calls, 1_000)).toBe(100); // before any keepalive: the open
    expect(fenceTiming(calls, 5)).toEqual({ fencedMs: 7_500, lastGoodSendMs: 3_500, deadlineMs: 7_500 });
    // A clock at half speed: the local 4 s take 8 s of true time.
    expect(fenceTiming(calls, 5, 0.5).deadlineMs).toBe(11_500);
    expect(fenceTiming([call('openSession', 0, 5)], 5)).toEqual({ fencedMs: undefined, lastGoodSendMs: 0, deadlineMs: 4_000 });
  });

  it('counts sessions fenced before their first keepalive (an open slower than TTL - margin - TTL/3)', () => {
    const slowOpen = [call('openSession', 11_356, 14_757), call('closeSession', 15_356, 15_365)];
    expect(sessionsFencedBeforeFirstKeepalive(slowOpen)).toBe(1);
    const renewed = [call('openSession', 0, 10), call('keepAlive', 1_677, 1_680), call('closeSession', 9_000, 9_010)];
    expect(sessionsFencedBeforeFirstKeepalive(renewed)).toBe(0);
    expect(sessionsFencedBeforeFirstKeepalive([...slowOpen, call('openSession', 16_000, 16_010), call('keepAlive', 17_677, 17_680)])).toBe(1);
  });

  it('leaves out metrics whose event did not happen and rounds the rest to 0.1 ms', () => {
    expect(present({ a: 1_234.5678, b: undefined, c: -2.06, d: 3 })).toEqual({ a: 1_234.6, c: -2.1, d: 3 });
  });

  it('moves leadership to a chosen member and logs the role changes', async () => {
    const leaders = new LeaderLog();
    const world = new World({ seed: 'kit-leader', yieldToHost, ...ledgerPolicy(5, []), cluster: { observer: leaders.observer } });
    leaders.bind(world.kernel);
    await world.start();
    const target = world.cluster.members.map((m) => m.name).find((name) => name !== world.cluster.leader()?.name) ?? 'etcd-2';
    const movedAtMs = world.kernel.now();
    await settleLeaderOn(world, target);
    expect(world.cluster.leader()?.name).toBe(target);
    expect(world.cluster.member(target).state?.lessor.isPrimary()).toBe(true);
    expect(leaders.firstLeaderAfter(movedAtMs)?.member).toBe(target);
    const previous = leaders.changes.filter((c) => c.role === 'leader' && c.atMs < movedAtMs).at(-1)?.member;
    expect(previous).toBeDefined();
    expect(leaders.steppedDownAfter(previous ?? '', movedAtMs)).toBeDefined();
  });

  it('retries a holder only on the codes its policy names, up to its bound, a retry interval apart', async () => {
    const world = new World({ seed: 'kit-retry', yieldToHost, ...ledgerPolicy(5, ['alice', 'bob']) });
    await world.start();
    const probe = new DeadlineProbe(world);
    const alice = probedClient(world, probe, 'alice');
    const bob = probedClient(world, probe, 'bob');
    const plan = { key: 'payments/ledger-1', className: LEDGER_CLASS, ttlSeconds: 5, waitMs: 0, units: 1, prepareMs: 10, gapMs: 0 } as const;
    const results: Array<Awaited<ReturnType<typeof runHolderWithRetries>>> = [];
    void runHolder(alice.node, { ...plan, units: 100, prepareMs: 100, release: false }, []);
    void world.kernel
      .sleep(1_000)
      .then(() => runHolderWithRetries(bob.node, plan, [], { retryOn: ['unavailable'], retryAfterMs: 500, maxAttempts: 5 }))
      .then((r) => results.push(r))
      .then(() => runHolderWithRetries(bob.node, plan, [], { retryOn: ['contended'], retryAfterMs: 500, maxAttempts: 3 }))
      .then((r) => results.push(r));
    await world.runUntil(world.kernel.now() + 10_000);
    expect(results.map((r) => [r.attempts, r.refusals.map((x) => x.code)])).toEqual([
      [1, ['contended']],
      [3, ['contended', 'contended', 'contended']],
    ]);
    const times = results[1]?.refusals.map((r) => r.atMs) ?? [];
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(500);
    expect(bob.calls.filter((c) => c.method === 'acquire' && c.outcome === 'contended')).toHaveLength(4);
  });
});
