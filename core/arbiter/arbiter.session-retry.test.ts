// Opening a session whose record's answer is lost (issue 11, swarm seed 8772): the put of the session
// record is the same key, value and lease each time, so a copy in doubt is sent again with a short
// deadline instead of waiting out etcd's whole one (which spent a caller's wait while the key lay free).
// Before the fix the first lost answer ended the open with `indeterminate`. The control: a record that
// can never be written still ends the open, with the lost answer's `indeterminate`, not a guess.
import { describe, expect, it } from 'vitest';
import { ALICE, FENCED, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { authenticated } from '../ports/caller.js';
import { SESSION_PREFIX } from './records.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS } from './log-retry.js';

const world = useArbiterWorld();

const isSessionRecord = (request: TxnRequest): boolean => request.success.some((op) => op.type === 'put' && op.key.startsWith(SESSION_PREFIX));

/** Loses the answers of the next `lost` session-record puts after they landed. */
class LostRecordLog extends DelegatingLockLog {
  lost = 0;
  readonly timeouts: Array<number | undefined> = [];

  override async txn(request: TxnRequest): Promise<TxnResponse> {
    if (!isSessionRecord(request)) return super.txn(request);
    this.timeouts.push(request.timeoutMs);
    const response = await super.txn(request);
    if (this.lost <= 0) return response;
    this.lost -= 1;
    throw new LockLogError('timeout', 'the answer was lost (test)', { outcome: 'indeterminate' });
  }
}

describe('a session whose record put loses its answer', () => {
  it('is sent again with a short deadline and the session opens', async () => {
    const log = new LostRecordLog(world.log());
    log.lost = 1;
    const arbiter = world.arbiter({ log });
    const session = await arbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds });
    expect(log.timeouts).toEqual([IDEMPOTENT_REQUEST_TIMEOUT_MS, IDEMPOTENT_REQUEST_TIMEOUT_MS]);
    // The session works: a hold attaches to it.
    const key = world.key('after-lost-record');
    const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect(grant.sessionId).toBe(session.sessionId);
  });

  it('the control: a record whose every answer is lost ends the open as indeterminate', async () => {
    const log = new LostRecordLog(world.log());
    log.lost = Number.MAX_SAFE_INTEGER;
    const arbiter = world.arbiter({ log });
    await expect(arbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds })).rejects.toMatchObject({ code: 'indeterminate' });
    expect(log.timeouts.length).toBeGreaterThan(1);
  });
});
