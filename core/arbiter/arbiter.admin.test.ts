// Force-release on real etcd (ADR-20): two different people, a reason, the fenced status shown and, for
// an advisory class, acknowledged; exactly the hold the operator saw; one txn that deletes the hold and
// writes a /sys/force record on its own lease.
import { describe, expect, it } from 'vitest';
import { ADVISORY, ALICE, BOB, FENCED, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { holderKeyOf, parseLockKey } from '../lock-key.js';
import { formatToken } from '../token.js';
import { revision } from '../units.js';
import type { Grant, Session } from '../ports/arbiter-api.js';
import { FORCE_RECORD_TTL_SECONDS } from './admin.js';
import type { Arbiter } from './arbiter.js';
import { FORCE_PREFIX } from './records.js';

const world = useArbiterWorld();
const REQUESTER = 'spiffe://ops/ana';
const APPROVER = 'spiffe://ops/ben';
const REASON = 'holder process wedged since 02:10, pages INC-4711';

async function held(arbiter: Arbiter, label: string, className: string, ttlSeconds: number): Promise<{ key: string; grant: Grant; session: Session }> {
  const key = world.key(label);
  const session = await world.session(arbiter, ALICE, ttlSeconds);
  const grant = await arbiter.acquire({ identity: ALICE, sessionId: session.sessionId, key, className, waitMs: 0 });
  return { key, grant, session };
}

describe('force-release on real etcd', () => {
  it('refuses one person acting as both requester and approver, and a missing reason, leaving the hold', async () => {
    const arbiter = world.arbiter();
    const { key, grant } = await held(arbiter, 'approvals', FENCED.name, FENCED.ttlSeconds);
    const expectedToken = formatToken(grant.token);
    const revisionBefore = await world.revision();

    const samePerson = await lockErrorOf(arbiter.forceRelease({ key, requester: REQUESTER, approver: REQUESTER, reason: REASON, expectedToken }));
    expect(samePerson.code).toBe('approval-required');
    const shortReason = await lockErrorOf(arbiter.forceRelease({ key, requester: REQUESTER, approver: APPROVER, reason: '  stuck   ', expectedToken }));
    expect(shortReason.code).toBe('approval-required');
    expect(shortReason.message).toContain('reason');
    expect(await world.revision()).toBe(revisionBefore); // nothing was written, not even the record's lease
  });

  it('shows an advisory class and requires acknowledging the unfenced risk before releasing it', async () => {
    const arbiter = world.arbiter();
    const { key, grant } = await held(arbiter, 'advisory', ADVISORY.name, ADVISORY.ttlSeconds);
    const request = { key, requester: REQUESTER, approver: APPROVER, reason: REASON, expectedToken: formatToken(grant.token) };
    expect((await arbiter.inspect(key)).enforcement).toBe('advisory');
    const revisionBefore = await world.revision();

    const unacknowledged = await lockErrorOf(arbiter.forceRelease(request));
    expect(unacknowledged.code).toBe('approval-required');
    expect(unacknowledged.message).toMatch(/advisory/);
    expect(unacknowledged.message).toMatch(/two writers/);
    expect(await world.revision()).toBe(revisionBefore);

    const released = await arbiter.forceRelease({ ...request, acknowledgeUnfenced: true });
    expect([released.released, released.enforcement]).toEqual([true, 'advisory']);
    expect(await world.holder(key)).toBeUndefined();
  });

  it('refuses a token that is not the current hold with stale', async () => {
    const arbiter = world.arbiter();
    const { key, grant: old, session } = await held(arbiter, 'stale', FENCED.name, FENCED.ttlSeconds);
    await arbiter.release({ identity: ALICE, sessionId: session.sessionId, key, token: old.token });
    const request = { key, requester: REQUESTER, approver: APPROVER, reason: REASON, expectedToken: formatToken(old.token) };

    expect((await lockErrorOf(arbiter.forceRelease(request))).code).toBe('stale'); // nobody holds it now
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const current = await arbiter.acquire({ identity: BOB, sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect((await lockErrorOf(arbiter.forceRelease(request))).code).toBe('stale'); // someone else holds it now
    expect((await world.holder(key))?.createRevision).toBe(current.revision);
  });

  it('releases a fenced hold without acknowledgement, records who and why on a one-day lease, and the holder’s own release then finds nothing', async () => {
    const arbiter = world.arbiter();
    const { key, grant, session } = await held(arbiter, 'fenced', FENCED.name, FENCED.ttlSeconds);
    expect((await arbiter.inspect(key)).enforcement).toBe('fenced');

    const response = await arbiter.forceRelease({ key, requester: REQUESTER, approver: APPROVER, reason: REASON, expectedToken: formatToken(grant.token) });
    expect([response.released, response.enforcement]).toEqual([true, 'fenced']);
    expect(response.recordKey.startsWith(`${FORCE_PREFIX}${key}/`)).toBe(true);
    expect(await world.holder(key)).toBeUndefined();

    const record = (await world.log().range({ key: response.recordKey })).kvs[0];
    expect(JSON.parse(record?.value ?? '{}')).toEqual({
      key,
      token: formatToken(grant.token),
      holder: ALICE,
      requester: REQUESTER,
      approver: APPROVER,
      reason: REASON,
      enforcement: 'fenced',
    });
    // One txn deleted the hold and wrote the record (ADR-20): the hold is there just before the record's
    // revision and gone at it.
    if (record === undefined) throw new Error(`no force record at ${response.recordKey}`);
    const holderKey = holderKeyOf(parseLockKey(key));
    expect((await world.log().range({ key: holderKey, revision: revision(record.createRevision - 1n) })).count).toBe(1);
    expect((await world.log().range({ key: holderKey, revision: record.createRevision })).count).toBe(0);
    const lease = await world.log().leaseTimeToLive(record.lease);
    expect(lease.grantedTtlSeconds).toBe(FORCE_RECORD_TTL_SECONDS);
    expect(lease.ttlSeconds).toBeGreaterThan(FORCE_RECORD_TTL_SECONDS - 60);

    expect(await arbiter.release({ identity: ALICE, sessionId: session.sessionId, key, token: grant.token })).toEqual({ released: false });
  });
});
