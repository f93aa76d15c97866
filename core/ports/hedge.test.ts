// hedgedCall on a hand-driven clock: which members a call safe to send twice is sent to, and when. The
// adapters' own tests (src/etcd/endpoint-set.test.ts, sim/cluster/lock-log.test.ts) run it on their timers.
import { describe, expect, it } from 'vitest';
import { type HedgeAttempt, type HedgeTimers, hedgedCall } from './hedge.js';
import { LockLogError } from './lock-log-error.js';

/** Timers that fire only when the test advances the clock. */
function manualTimers() {
  let nowMs = 0;
  const due: Array<{ atMs: number; fire: () => void; cancelled: boolean }> = [];
  const timers: HedgeTimers = {
    now: () => nowMs,
    after: (ms, fire) => {
      const entry = { atMs: nowMs + ms, fire, cancelled: false };
      due.push(entry);
      return () => {
        entry.cancelled = true;
      };
    },
  };
  const advance = async (ms: number): Promise<void> => {
    nowMs += ms;
    for (const entry of due.filter((e) => !e.cancelled && e.atMs <= nowMs)) {
      entry.cancelled = true;
      entry.fire();
    }
    await Promise.resolve();
  };
  return { timers, advance };
}

/** Members whose answers the test gives; records who was asked, with how long left, and who was abandoned. */
function members() {
  const asked: Array<{ member: number; leftMs: number }> = [];
  const abandoned: number[] = [];
  const pending = new Map<number, { resolve: (v: string) => void; reject: (e: unknown) => void }>();
  const ask = (member: number, leftMs: number): HedgeAttempt<string> => {
    asked.push({ member, leftMs });
    const answer = new Promise<string>((resolve, reject) => pending.set(member, { resolve, reject }));
    return { answer, abandon: () => abandoned.push(member) };
  };
  const answer = (member: number) => pending.get(member)?.resolve(`member ${member}`);
  const fail = (member: number, code: LockLogError['code']) => pending.get(member)?.reject(new LockLogError(code, 'no'));
  return { ask, asked, abandoned, answer, fail };
}

const plan = { members: 3, first: 1, hedgeAfterMs: 500, timeoutMs: 2_000 };

describe('hedgedCall (core/ports/hedge.ts)', () => {
  it('asks only the first member when it answers before the hedge delay', async () => {
    const { timers } = manualTimers();
    const m = members();
    const call = hedgedCall(plan, timers, m.ask);
    m.answer(1);
    expect(await call).toEqual({ value: 'member 1', member: 1 });
    expect(m.asked.map((a) => a.member)).toEqual([1]);
  });

  it('asks the next member after each hedge delay (re-armed), with what is left of the deadline, and abandons the rest when one answers', async () => {
    const { timers, advance } = manualTimers();
    const m = members();
    const call = hedgedCall(plan, timers, m.ask);
    await advance(500);
    await advance(500);
    expect(m.asked).toEqual([
      { member: 1, leftMs: 2_000 },
      { member: 2, leftMs: 1_500 },
      { member: 0, leftMs: 1_000 },
    ]);
    m.answer(0);
    expect(await call).toEqual({ value: 'member 0', member: 0 });
    expect(m.abandoned.sort()).toEqual([0, 1, 2]);
  });

  it('replaces a member that fails at once, and fails with the last failure when every member failed', async () => {
    const { timers } = manualTimers();
    const m = members();
    const call = hedgedCall(plan, timers, m.ask);
    m.fail(1, 'unavailable');
    await Promise.resolve();
    expect(m.asked.map((a) => a.member)).toEqual([1, 2]);
    m.fail(2, 'timeout');
    await Promise.resolve();
    m.fail(0, 'not-leader');
    await expect(call).rejects.toMatchObject({ code: 'not-leader' });
  });

  it('once every member was asked, a failure ends the call without waiting for a member still silent', async () => {
    const { timers, advance } = manualTimers();
    const m = members();
    const call = hedgedCall(plan, timers, m.ask);
    await advance(500);
    await advance(500);
    m.fail(2, 'not-leader'); // member 1 stays silent
    await expect(call).rejects.toMatchObject({ code: 'not-leader' });
    expect(m.abandoned).toContain(1);
  });

  it('ends at once on an answer every member would give (lease-not-found), asking nobody else', async () => {
    const { timers } = manualTimers();
    const m = members();
    const call = hedgedCall(plan, timers, m.ask);
    m.fail(1, 'lease-not-found');
    await expect(call).rejects.toMatchObject({ code: 'lease-not-found' });
    expect(m.asked.map((a) => a.member)).toEqual([1]);
  });

  it('negative control: with hedgeAfterMs Infinity only the first member is ever asked', async () => {
    const { timers, advance } = manualTimers();
    const m = members();
    const call = hedgedCall({ ...plan, hedgeAfterMs: Number.POSITIVE_INFINITY }, timers, m.ask);
    await advance(1_900);
    expect(m.asked.map((a) => a.member)).toEqual([1]);
    await advance(100); // the deadline: the member's attempt times out with nothing left to ask another
    m.fail(1, 'timeout');
    await expect(call).rejects.toMatchObject({ code: 'timeout' });
  });
});
