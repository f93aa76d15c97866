// Force-release on real etcd (ADR-20): requested by one authenticated operator and approved by a second,
// different one, with a reason, the fenced status shown and, for an advisory class, acknowledged; exactly
// the hold the operator saw; one txn that deletes the hold and writes a /sys/force record on its own lease.
import { authenticated, unauthenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ADVISORY, ALICE, BOB, FENCED, fixtureGrants, lockErrorOf, useArbiterWorld, OPERATORS, OPERATOR_IDS } from '../../src/testing/arbiter-fixture.js';
import { holderKeyOf, parseLockKey } from '../lock-key.js';
import { formatToken } from '../token.js';
import { revision } from '../units.js';
import type { Grant, Session } from '../ports/arbiter-api.js';
import { FORCE_RECORD_TTL_SECONDS } from './admin.js';
import { forceReleaseByTwo } from './two-person.js';
import type { Arbiter } from './arbiter.js';
import { FORCE_PREFIX } from './records.js';

const world = useArbiterWorld();
const [REQUESTER, APPROVER] = OPERATOR_IDS;
const REASON = 'holder process wedged since 02:10, pages INC-4711';

async function held(arbiter: Arbiter, label: string, className: string, ttlSeconds: number): Promise<{ key: string; grant: Grant; session: Session }> {
  const key = world.key(label);
  const session = await world.session(arbiter, ALICE, ttlSeconds);
  const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key, className, waitMs: 0 });
  return { key, grant, session };
}

describe('force-release on real etcd', () => {
  it('refuses one operator approving their own request, and a missing reason, leaving the hold and writing nothing', async () => {
    const arbiter = world.arbiter();
    const { key, grant } = await held(arbiter, 'approvals', FENCED.name, FENCED.ttlSeconds);
    const expectedToken = formatToken(grant.token);
    const revisionBefore = await world.revision();

    const proposal = await arbiter.requestForceRelease(OPERATORS[0], { key, reason: REASON, expectedToken });
    expect([proposal.requester, proposal.enforcement, proposal.holder.identity]).toEqual([REQUESTER, 'fenced', ALICE]);
    const samePerson = await lockErrorOf(arbiter.approveForceRelease(OPERATORS[0], { requestId: proposal.requestId }));
    expect(samePerson.code).toBe('approval-required');
    expect(samePerson.message).toContain('second, different operator');
    const shortReason = await lockErrorOf(arbiter.requestForceRelease(OPERATORS[0], { key, reason: '  stuck   ', expectedToken }));
    expect(shortReason.code).toBe('approval-required');
    expect(shortReason.message).toContain('reason');
    expect(await world.revision()).toBe(revisionBefore); // nothing was written, not even the record's lease
    expect((await world.holder(key))?.createRevision).toBe(grant.revision);
    // The refused self-approval left the request for a second operator (the negative control: it can pass).
    expect((await arbiter.approveForceRelease(OPERATORS[1], { requestId: proposal.requestId })).released).toBe(true);
  });

  it('refuses an unauthenticated operator, and a workload without an operator grant, the same whether or not the key is held', async () => {
    const arbiter = world.arbiter();
    const { key, grant } = await held(arbiter, 'who-may', FENCED.name, FENCED.ttlSeconds);
    const free = world.key('who-may-free');
    const request = (k: string) => ({ key: k, reason: REASON, expectedToken: formatToken(grant.token) });
    const revisionBefore = await world.revision();

    const unproven = await lockErrorOf(arbiter.requestForceRelease(unauthenticated(REQUESTER), request(key)));
    expect(unproven.code).toBe('unauthenticated');
    const workloadHeld = await lockErrorOf(arbiter.requestForceRelease(authenticated(BOB), request(key)));
    const workloadFree = await lockErrorOf(arbiter.requestForceRelease(authenticated(BOB), request(free)));
    expect(workloadHeld.code).toBe('denied');
    expect(workloadFree.message).toBe(workloadHeld.message.replace(key, free));
    const proposal = await arbiter.requestForceRelease(OPERATORS[0], request(key));
    expect((await lockErrorOf(arbiter.approveForceRelease(unauthenticated(APPROVER), { requestId: proposal.requestId }))).code).toBe('unauthenticated');
    expect((await lockErrorOf(arbiter.approveForceRelease(authenticated(BOB), { requestId: proposal.requestId }))).code).toBe('denied');
    expect(await world.revision()).toBe(revisionBefore);
  });

  it('check, then change: an approval refused for want of authority over the key leaves the request waiting (issue 28)', async () => {
    // An operator of another namespace only: an operator, but not of this key.
    const foreign = 'spiffe://ops/olga';
    const base = fixtureGrants();
    const authorizer = { allows: base.allows.bind(base), operates: (identity: string, k: string | undefined) => (identity === foreign ? k === undefined || k.startsWith('elsewhere/') : base.operates(identity, k)) };
    const arbiter = world.arbiter({ authorizer });
    const { key, grant } = await held(arbiter, 'check-first', FENCED.name, FENCED.ttlSeconds);
    const proposal = await arbiter.requestForceRelease(OPERATORS[0], { key, reason: REASON, expectedToken: formatToken(grant.token) });
    expect((await lockErrorOf(arbiter.approveForceRelease(authenticated(foreign), { requestId: proposal.requestId }))).code).toBe('denied');
    expect((await lockErrorOf(arbiter.approveForceRelease(authenticated(BOB), { requestId: proposal.requestId }))).code).toBe('denied');
    // Both refusals consumed nothing: the right operator's approval still finds the request (before issue 28
    // the first refusal took it off the list and this answered `stale`).
    expect((await arbiter.approveForceRelease(OPERATORS[1], { requestId: proposal.requestId })).released).toBe(true);
  });

  it('shows an advisory class and requires acknowledging the unfenced risk before releasing it', async () => {
    const arbiter = world.arbiter();
    const { key, grant } = await held(arbiter, 'advisory', ADVISORY.name, ADVISORY.ttlSeconds);
    const request = { key, reason: REASON, expectedToken: formatToken(grant.token) };
    expect((await arbiter.inspect(OPERATORS[0], key)).enforcement).toBe('advisory');
    const revisionBefore = await world.revision();

    const unacknowledged = await lockErrorOf(forceReleaseByTwo(arbiter, OPERATORS, request));
    expect(unacknowledged.code).toBe('approval-required');
    expect(unacknowledged.message).toMatch(/advisory/);
    expect(unacknowledged.message).toMatch(/two writers/);
    expect(await world.revision()).toBe(revisionBefore);

    const released = await forceReleaseByTwo(arbiter, OPERATORS, { ...request, acknowledgeUnfenced: true });
    expect([released.released, released.enforcement]).toEqual([true, 'advisory']);
    expect(await world.holder(key)).toBeUndefined();
  });

  it('refuses a token that is not the current hold with stale', async () => {
    const arbiter = world.arbiter();
    const { key, grant: old, session } = await held(arbiter, 'stale', FENCED.name, FENCED.ttlSeconds);
    await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key, token: old.token });
    const request = { key, reason: REASON, expectedToken: formatToken(old.token) };

    expect((await lockErrorOf(forceReleaseByTwo(arbiter, OPERATORS, request))).code).toBe('stale'); // nobody holds it now
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const current = await arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect((await lockErrorOf(forceReleaseByTwo(arbiter, OPERATORS, request))).code).toBe('stale'); // someone else holds it now
    expect((await world.holder(key))?.createRevision).toBe(current.revision);
  });

  it('releases a fenced hold without acknowledgement, records who and why on a one-day lease, and the holder’s own release then finds nothing', async () => {
    const arbiter = world.arbiter();
    const { key, grant, session } = await held(arbiter, 'fenced', FENCED.name, FENCED.ttlSeconds);
    expect((await arbiter.inspect(OPERATORS[0], key)).enforcement).toBe('fenced');

    const response = await forceReleaseByTwo(arbiter, OPERATORS, { key, reason: REASON, expectedToken: formatToken(grant.token) });
    expect([response.released, response.enforcement, response.requester, response.approver]).toEqual([true, 'fenced', REQUESTER, APPROVER]);
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

    expect(await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key, token: grant.token })).toEqual({ released: false });
  });
});
