// An acquire answered `indeterminate` is asked again on the same session while its wait lasts (issue 12:
// a waiter of a killed arbiter moves to another), and a retry refused outright does not undo the doubt
// (issue 11, swarm seeds 574, 2116, 4238). A scripted arbiter on the simulator's kernel as the clock.
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { LockError, isLockError } from '../lock-error.js';
import type { AcquireRequest, ArbiterApi, Grant } from '../ports/arbiter-api.js';
import { leaseId, revision } from '../units.js';
import { LockClient } from './lock-client.js';

const SESSION = leaseId(7n);
const grant: Grant = { key: 'orders/o-1', token: 5n as Grant['token'], epoch: 0, revision: revision(5n), sessionId: SESSION, identity: 'spiffe://t/alice', className: 'writes', reentered: false };

function scripted(answers: ReadonlyArray<() => Promise<Grant>>): { arbiter: ArbiterApi; asked: AcquireRequest[] } {
  const asked: AcquireRequest[] = [];
  const unused = (): never => {
    throw new Error('not called by this test');
  };
  const arbiter: ArbiterApi = {
    openSession: async () => ({ sessionId: SESSION, identity: 'spiffe://t/alice', instance: '', ttlSeconds: 15 }),
    keepAlive: async () => ({ ttlSeconds: 15 }),
    closeSession: async () => {},
    acquire: (request) => {
      asked.push(request);
      const answer = answers[asked.length - 1];
      return answer === undefined ? Promise.reject(new Error('not scripted')) : answer();
    },
    release: async () => ({ released: true }),
    inspect: async (key) => ({ key, holder: undefined, enforcement: undefined }),
    validate: unused, describeKey: unused, requestForceRelease: unused, approveForceRelease: unused, requestEpochAdvance: unused, approveEpochAdvance: unused, status: unused,
  };
  return { arbiter, asked };
}

const indeterminate = () => Promise.reject(new LockError('indeterminate', 'the stream was cancelled after the call was sent (test)'));
const draining = () => Promise.reject(new LockError('draining', 'the range is moving (test)'));

async function acquireOn(arbiter: ArbiterApi): Promise<Grant | LockError> {
  const kernel = new Kernel({ seed: 'lock-client-in-doubt', yieldToHost: () => new Promise((done) => setImmediate(done)) });
  const client = new LockClient({ arbiter, clock: kernel, identity: 'spiffe://t/alice' });
  const outcome = client.acquire({ key: 'orders/o-1', className: 'writes', ttlSeconds: 15, waitMs: 5_000, onFence: () => {} }).then(
    (handle) => ({ ...grant, token: handle.token }),
    (error: unknown) => (isLockError(error) ? error : Promise.reject(error)),
  );
  await kernel.runUntil(10_000);
  return outcome;
}

describe('LockClient, an acquire answered indeterminate', () => {
  it('asks again on the same session while the wait lasts, and is granted', async () => {
    const { arbiter, asked } = scripted([indeterminate, async () => grant]);
    expect(await acquireOn(arbiter)).toMatchObject({ token: 5n });
    expect(asked.map((r) => r.sessionId)).toEqual([SESSION, SESSION]);
  });

  it('keeps `indeterminate` when the retry is refused outright: the first call may have granted', async () => {
    const { arbiter, asked } = scripted([indeterminate, draining]);
    const outcome = await acquireOn(arbiter);
    expect(isLockError(outcome, 'indeterminate')).toBe(true); // before the fix: draining, with a hold in the log
    expect(asked).toHaveLength(2);
  });

  it('its control: a refusal with no doubt before it is the answer', async () => {
    const { arbiter } = scripted([draining]);
    expect(isLockError(await acquireOn(arbiter), 'draining')).toBe(true);
  });
});
