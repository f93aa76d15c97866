// The client library on real etcd: re-entrancy counted in the library (ADR-13), and the holder in the
// dark (ADR-12): canStart() false at the first failed keepalive, onFence before etcd expires the hold.
import { actingAs, authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { createRealClock } from '../../src/clock/index.js';
import { ALICE, FENCED, FENCED_SHORT, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { LockError } from '../lock-error.js';
import { holderKeyOf, parseLockKey } from '../lock-key.js';
import type {
  AcquireRequest,
  AdvanceEpochRequest,
  AdvanceEpochResponse,
  ArbiterApi,
  ArbiterStatus,
  ForceReleaseRequest,
  ForceReleaseProposal,
  ApproveForceReleaseRequest,
  EpochAdvanceProposal,
  ApproveEpochAdvanceRequest,
  ForceReleaseResponse,
  Grant,
  InspectResponse,
  KeepAliveRequest,
  KeepAliveResponse,
  OpenSessionRequest,
  ReleaseRequest,
  ReleaseResponse,
  Session,
  ValidateRequest,
  ValidateResponse,
} from '../ports/arbiter-api.js';
import { revision } from '../units.js';
import type { FenceReason } from './client-session.js';
import { LockClient } from './lock-client.js';

const world = useArbiterWorld();
const clock = createRealClock();
const noFence = (): void => {};

/**
 * An ArbiterApi in front of the real arbiter that counts the calls reaching it and can cut the client
 * off (a partition between client and arbiter): from cut() on, keepAlive and closeSession reject.
 */
class ObservedArbiter implements ArbiterApi {
  readonly calls = new Map<keyof ArbiterApi, number>();
  openSessionSentMs: number | undefined;
  readonly failedKeepAliveMs: number[] = [];
  private cutOff = false;

  constructor(private readonly inner: ArbiterApi) {}

  count(method: keyof ArbiterApi): number {
    return this.calls.get(method) ?? 0;
  }

  cut(): void {
    this.cutOff = true;
  }

  private called(method: keyof ArbiterApi): void {
    this.calls.set(method, this.count(method) + 1);
  }

  openSession(request: OpenSessionRequest): Promise<Session> {
    this.called('openSession');
    this.openSessionSentMs = clock.now();
    return this.inner.openSession(request);
  }
  async keepAlive(request: KeepAliveRequest): Promise<KeepAliveResponse> {
    this.called('keepAlive');
    if (this.cutOff) {
      this.failedKeepAliveMs.push(clock.now());
      throw new LockError('unavailable', 'partitioned from the arbiter (test)');
    }
    return this.inner.keepAlive(request);
  }
  async closeSession(request: KeepAliveRequest): Promise<void> {
    this.called('closeSession');
    if (this.cutOff) throw new LockError('unavailable', 'partitioned from the arbiter (test)');
    return this.inner.closeSession(request);
  }
  acquire(request: AcquireRequest): Promise<Grant> {
    this.called('acquire');
    return this.inner.acquire(request);
  }
  release(request: ReleaseRequest): Promise<ReleaseResponse> {
    this.called('release');
    return this.inner.release(request);
  }
  validate(request: ValidateRequest): Promise<ValidateResponse> {
    this.called('validate');
    return this.inner.validate(request);
  }
  inspect(key: string): Promise<InspectResponse> {
    this.called('inspect');
    return this.inner.inspect(key);
  }
  describeKey(request: Parameters<ArbiterApi['describeKey']>[0]): ReturnType<ArbiterApi['describeKey']> {
    this.called('describeKey');
    return this.inner.describeKey(request);
  }
  requestForceRelease(request: ForceReleaseRequest): Promise<ForceReleaseProposal> {
    this.called('requestForceRelease');
    return this.inner.requestForceRelease(request);
  }
  approveForceRelease(request: ApproveForceReleaseRequest): Promise<ForceReleaseResponse> {
    this.called('approveForceRelease');
    return this.inner.approveForceRelease(request);
  }
  requestEpochAdvance(request: AdvanceEpochRequest): Promise<EpochAdvanceProposal> {
    this.called('requestEpochAdvance');
    return this.inner.requestEpochAdvance(request);
  }
  approveEpochAdvance(request: ApproveEpochAdvanceRequest): Promise<AdvanceEpochResponse> {
    this.called('approveEpochAdvance');
    return this.inner.approveEpochAdvance(request);
  }
  status(): Promise<ArbiterStatus> {
    this.called('status');
    return this.inner.status();
  }
}

describe('LockClient on real etcd', () => {
  it('counts nested acquires in the library: one acquire and one release reach the arbiter, and the last release deletes the hold (ADR-13)', async () => {
    const arbiter = new ObservedArbiter(actingAs(world.arbiter(), authenticated(ALICE)));
    const client = new LockClient({ arbiter, clock, identity: ALICE });
    const key = world.key('nested');
    try {
      const outer = await client.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, onFence: noFence });
      const middle = await client.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, onFence: noFence });
      const inner = await client.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, onFence: noFence });
      expect([middle.token, inner.token]).toEqual([outer.token, outer.token]);
      expect(client.holdCount(key)).toBe(3);
      expect(arbiter.count('acquire')).toBe(1);

      expect(await inner.release()).toBe(false);
      expect(await outer.release()).toBe(false); // release order does not matter, only the count
      expect(arbiter.count('release')).toBe(0);
      expect((await world.holder(key))?.createRevision).toBe(outer.grant.revision);
      expect((await lockErrorOf(inner.release())).code).toBe('invalid-argument'); // a handle releases once

      expect(await middle.release()).toBe(true);
      expect(arbiter.count('release')).toBe(1);
      expect(client.holdCount(key)).toBe(0);
      expect(await world.holder(key)).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('stops new work at the first failed keepalive and fences before etcd deletes the hold (ADR-12)', async () => {
    const arbiter = new ObservedArbiter(actingAs(world.arbiter(), authenticated(ALICE)));
    // What the session-fence observer saw when it was called: after the hold's onFence, before the revoke.
    const observed: Array<{ reason: FenceReason; holdFencesSoFar: number; revokesSoFar: number }> = [];
    const client = new LockClient({ arbiter, clock, identity: ALICE, onSessionFenced: ({ reason }) => observed.push({ reason, holdFencesSoFar: fences.length, revokesSoFar: arbiter.count('closeSession') }) });
    const key = world.key('in-the-dark');
    const fences: Array<{ reason: FenceReason; atMs: number }> = [];
    try {
      const handle = await client.acquire({ key, className: FENCED_SHORT.name, ttlSeconds: FENCED_SHORT.ttlSeconds, onFence: (reason) => fences.push({ reason, atMs: clock.now() }) });
      arbiter.cut(); // from here on no keepalive reaches the arbiter, and neither does the revoke at the fence
      let deletedAtMs: number | undefined;
      const watch = await world.log().watch(
        { key: holderKeyOf(parseLockKey(key)), startRevision: revision(handle.grant.revision + 1n) },
        {
          onEvents: (batch) => {
            if (batch.events.some((event) => event.type === 'delete')) deletedAtMs ??= clock.now();
          },
          onError: () => {},
        },
      );

      const samples: Array<{ atMs: number; canStart: boolean; remainingMs: number }> = [];
      const giveUpAtMs = clock.now() + 3 * FENCED_SHORT.ttlSeconds * 1000;
      while ((fences.length === 0 || deletedAtMs === undefined) && clock.now() < giveUpAtMs) {
        samples.push({ atMs: clock.now(), canStart: handle.canStart(), remainingMs: handle.remainingTtlMs() });
        await clock.sleep(20);
      }
      await watch.cancel();

      // Stage one: work may start until the first keepalive fails, and not after it.
      const firstFailureMs = arbiter.failedKeepAliveMs[0];
      if (firstFailureMs === undefined) throw new Error('no keepalive was attempted');
      const before = samples.filter((s) => s.atMs < firstFailureMs);
      const after = samples.filter((s) => s.atMs > firstFailureMs);
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((s) => s.canStart)).toBe(true);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((s) => !s.canStart)).toBe(true);

      // Stage two: onFence at the send time of the last successful renewal (here: the session's opening,
      // as none succeeded after it) + TTL - 1 s, and before etcd deleted the hold.
      expect(fences.map((f) => f.reason)).toEqual(['deadline']);
      expect(observed).toEqual([{ reason: 'deadline', holdFencesSoFar: 1, revokesSoFar: 0 }]);
      const fenceAtMs = fences[0]?.atMs ?? Number.NaN;
      const expectedFenceMs = (arbiter.openSessionSentMs ?? Number.NaN) + FENCED_SHORT.ttlSeconds * 1000 - 1000;
      expect(fenceAtMs).toBeGreaterThanOrEqual(expectedFenceMs - 5); // the client stamped its send a moment before us
      expect(fenceAtMs).toBeLessThan(expectedFenceMs + 250);
      expect(deletedAtMs).toBeDefined();
      expect(fenceAtMs).toBeLessThan(deletedAtMs ?? Number.NEGATIVE_INFINITY);

      // remainingTtlMs counts down to the fence, and is 0 from then on.
      const beforeFence = samples.filter((s) => s.atMs < fenceAtMs).map((s) => s.remainingMs);
      expect(beforeFence.every((ms, i) => i === 0 || ms <= (beforeFence[i - 1] ?? 0))).toBe(true);
      expect(beforeFence[0]).toBeGreaterThan((beforeFence.at(-1) ?? 0) + 3000);
      expect(samples.filter((s) => s.atMs > fenceAtMs).every((s) => s.remainingMs === 0 && !s.canStart)).toBe(true);
      expect([handle.fenced, handle.canStart(), handle.remainingTtlMs()]).toEqual([true, false, 0]);
    } finally {
      await client.close();
    }
  });
});
