// A release is sent again when a copy's answer is lost (issue 12, log-retry.ts), on real etcd: the copy
// that landed is found by the next copy's failure branch, which reads the session's release marker
// (ADR-21), so the caller is told released: true, read from the log. The control: when the hold was
// deleted by something else (a revocation) while the copy was lost, the marker does not name it, and the
// answer stays released: false. A copy that never reached etcd is simply sent again.
import { describe, expect, it } from 'vitest';
import { ALICE, FENCED, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';
import { HOLDER_PREFIX } from '../lock-key.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { authenticated } from '../ports/caller.js';

const world = useArbiterWorld();

const isRelease = (request: TxnRequest): boolean => request.success.some((op) => op.type === 'delete' && op.key.startsWith(HOLDER_PREFIX));

/** Loses the next release copies: `landed` ones reach etcd first, the others never leave. */
class LostReleaseLog extends DelegatingLockLog {
  plan: Array<'landed' | 'dropped'> = [];
  readonly timeouts: Array<number | undefined> = [];
  beforeDrop: () => Promise<void> = async () => undefined;

  override async txn(request: TxnRequest): Promise<TxnResponse> {
    if (!isRelease(request)) return super.txn(request);
    this.timeouts.push(request.timeoutMs);
    const step = this.plan.shift();
    if (step === 'landed') {
      await super.txn(request);
      throw new LockLogError('timeout', 'the answer was lost (test)', { outcome: 'indeterminate' });
    }
    if (step === 'dropped') {
      await this.beforeDrop();
      throw new LockLogError('timeout', 'the copy was lost with the leader (test)', { outcome: 'indeterminate' });
    }
    return super.txn(request);
  }
}

async function holdOne(label: string) {
  const log = new LostReleaseLog(world.log());
  const arbiter = world.arbiter({ log });
  const session = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
  const key = world.key(label);
  const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
  return { log, arbiter, session, key, grant };
}

describe('a release whose copy is lost', () => {
  it('that landed: the next copy reads the marker and answers released: true', async () => {
    const { log, arbiter, session, key, grant } = await holdOne('landed');
    log.plan = ['landed'];
    expect(await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key, token: grant.token })).toEqual({ released: true });
    expect(await world.holder(key)).toBeUndefined();
    expect(log.timeouts).toHaveLength(2);
    expect(log.timeouts.every((ms) => ms !== undefined && ms < 1_000)).toBe(true); // a short per-request deadline on every copy
  });

  it('that never arrived: it is sent again and releases', async () => {
    const { log, arbiter, session, key, grant } = await holdOne('dropped');
    log.plan = ['dropped', 'dropped'];
    expect(await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key, token: grant.token })).toEqual({ released: true });
    expect(await world.holder(key)).toBeUndefined();
    expect(log.timeouts).toHaveLength(3);
  });

  it('the control: a hold deleted by something else meanwhile is not claimed: released: false', async () => {
    const { log, arbiter, session, key, grant } = await holdOne('control');
    log.plan = ['dropped'];
    // While the copy is lost, the hold goes another way: a raw delete of the holder key (an expiry or a
    // force-release would do the same); no release marker names it.
    log.beforeDrop = async () => {
      await world.log().txn({ compare: [], success: [{ type: 'delete', key: `${HOLDER_PREFIX}${key}` }], failure: [] });
    };
    expect(await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key, token: grant.token })).toEqual({ released: false });
  });
});
