// EndpointSet.runHedged without etcd: which members a call safe to apply twice (a keepalive) is sent to,
// and when. The calls are stand-ins keyed by endpoint; nothing is dialled.
import { afterEach, describe, expect, it } from 'vitest';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { AttemptSignal } from './attempt-signal.js';
import { type CallOptions, EndpointSet } from './endpoint-set.js';

const ENDPOINTS = ['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:3'];
const spec = { operation: 'keepalive of lease 1', mutates: true };
const sets: EndpointSet[] = [];
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
});

type Behaviour = 'answer' | 'silent' | 'unavailable' | 'lease-not-found';

/** A set whose members behave as given; records the order members were asked and their abort signals. */
function membersThat(behaviours: readonly Behaviour[]) {
  const set = new EndpointSet(ENDPOINTS, 60_000);
  sets.push(set);
  const asked: string[] = [];
  const signals: AttemptSignal[] = [];
  const call = (_client: unknown, options: CallOptions, endpoint: string): Promise<string> => {
    asked.push(endpoint);
    if (options.signal !== undefined) signals.push(options.signal);
    const behaviour = behaviours[ENDPOINTS.findIndex((e) => endpoint.endsWith(e))];
    if (behaviour === 'answer') return Promise.resolve(endpoint);
    if (behaviour === 'unavailable') return Promise.reject(new LockLogError('unavailable', 'no connection'));
    if (behaviour === 'lease-not-found') return Promise.reject(new LockLogError('lease-not-found', 'gone'));
    return new Promise((_resolve, reject) => {
      const timer = setTimeout(() => reject(new LockLogError('timeout', 'deadline exceeded', { outcome: 'indeterminate' })), options.deadline.getTime() - Date.now());
      options.signal?.onAbort(() => clearTimeout(timer));
    });
  };
  return { set, asked, signals, call };
}

describe('EndpointSet.runHedged', () => {
  it('asks only the current member when it answers', async () => {
    const m = membersThat(['answer', 'answer', 'answer']);
    expect(await m.set.runHedged(spec, m.call, { hedgeAfterMs: 50, timeoutMs: 2_000 })).toBe('http://127.0.0.1:1');
    expect(m.asked).toEqual(['http://127.0.0.1:1']);
  });

  it('asks the next member too when the current one is silent, takes its answer, and uses it from then on', async () => {
    const m = membersThat(['silent', 'answer', 'answer']);
    expect(await m.set.runHedged(spec, m.call, { hedgeAfterMs: 50, timeoutMs: 2_000 })).toBe('http://127.0.0.1:2');
    expect(m.asked).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    expect(m.signals[0]?.aborted).toBe(true); // the silent member's attempt is cancelled
    expect(m.set.currentEndpoint).toBe('http://127.0.0.1:2');
  });

  it('replaces a member that fails at once, without waiting for the hedge', async () => {
    const m = membersThat(['unavailable', 'unavailable', 'answer']);
    expect(await m.set.runHedged(spec, m.call, { hedgeAfterMs: 60_000, timeoutMs: 2_000 })).toBe('http://127.0.0.1:3');
    expect(m.asked).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:2', 'http://127.0.0.1:3']);
  });

  it('fails with the last failure when every member failed, and at the deadline when all are silent', async () => {
    const failing = membersThat(['unavailable', 'unavailable', 'unavailable']);
    await expect(failing.set.runHedged(spec, failing.call, { hedgeAfterMs: 50, timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'unavailable' });
    const silent = membersThat(['silent', 'silent', 'silent']);
    await expect(silent.set.runHedged(spec, silent.call, { hedgeAfterMs: 50, timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout', outcome: 'indeterminate' });
    expect(silent.asked).toHaveLength(3);
  });

  it('ends at once on an answer every member would give (the lease is gone)', async () => {
    const m = membersThat(['lease-not-found', 'answer', 'answer']);
    await expect(m.set.runHedged(spec, m.call, { hedgeAfterMs: 50, timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'lease-not-found' });
    expect(m.asked).toEqual(['http://127.0.0.1:1']);
  });

  it('never hedges with hedgeAfterMs Infinity (the old keepalive: one member, the whole deadline)', async () => {
    const m = membersThat(['silent', 'answer', 'answer']);
    await expect(m.set.runHedged(spec, m.call, { hedgeAfterMs: Number.POSITIVE_INFINITY, timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
    expect(m.asked).toEqual(['http://127.0.0.1:1']);
  });
});

describe('EndpointSet.run with a call\'s own deadline (TxnRequest.timeoutMs, issue 12)', () => {
  it('ends a silent member\'s call at the shorter deadline, and the next call goes to the next member', async () => {
    const m = membersThat(['silent', 'answer', 'answer']);
    const error = await m.set.run({ operation: 'txn', mutates: true, timeoutMs: 100 }, m.call).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', outcome: 'indeterminate' });
    expect(m.set.currentEndpoint).toBe('http://127.0.0.1:2');
    expect(await m.set.run({ operation: 'txn', mutates: true, timeoutMs: 100 }, m.call)).toBe('http://127.0.0.1:2');
  });

  it('never lengthens the set\'s request timeout', () => {
    const set = new EndpointSet(ENDPOINTS, 1_000);
    sets.push(set);
    const startMs = Date.now();
    expect(set.deadline(60_000).getTime() - startMs).toBeLessThanOrEqual(1_000 + 50);
    expect(set.deadline(200).getTime() - startMs).toBeLessThanOrEqual(200 + 50);
    expect(set.deadline().getTime() - startMs).toBeGreaterThanOrEqual(1_000 - 50);
  });
});
