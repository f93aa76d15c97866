// The seal on real etcd (ADR-03): an arbiter whose log is replaced (another cluster ID) or restored
// with the same cluster ID (revision gone backwards) refuses to serve until two approvers advance the
// epoch, and every token after the advance is above every token before it.
import { advanceEpochByTwo } from './two-person.js';
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, FENCED, lockErrorOf, useArbiterWorld, OPERATORS } from '../../src/testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';
import type { Arbiter } from './arbiter.js';
import { EPOCH_KEY, formatEpochRecord, parseEpochRecord } from './records.js';
import type { LockLog } from '../ports/lock-log.js';
import type { FencingToken } from '../units.js';

const world = useArbiterWorld();
const REASON = 'restored the lock log from last night’s snapshot (INC-4711)';

/** Grants and releases `count` times, so the arbiter has issued (and seen) tokens; returns them. */
async function issueTokens(arbiter: Arbiter, identity: string, count: number, label: string): Promise<FencingToken[]> {
  const session = await world.session(arbiter, identity, FENCED.ttlSeconds);
  const tokens: FencingToken[] = [];
  for (let i = 0; i < count; i++) {
    const key = world.key(`${label}-${i}`);
    const grant = await arbiter.acquire(authenticated(identity), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
    tokens.push(grant.token);
    await arbiter.release(authenticated(identity), { sessionId: session.sessionId, key, token: grant.token });
  }
  return tokens;
}

async function writeJunk(log: LockLog, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await log.txn({ compare: [], success: [{ type: 'put', key: `/junk/${i}`, value: 'x' }], failure: [] });
}

const max = (tokens: readonly FencingToken[]): FencingToken => tokens.reduce((a, b) => (b > a ? b : a));

describe('arbiter seal on real etcd', () => {
  it('seals on a cluster-ID mismatch, refuses acquire and keepalive, and serves again with higher tokens after a two-person epoch advance', async () => {
    const second = await world.startCluster({ init: false }); // a replacement cluster: no epoch record
    const secondLog = world.openLog(second.endpoints);
    const switchable = new DelegatingLockLog(world.log());
    const arbiter = world.arbiter({ log: switchable });
    const before = await issueTokens(arbiter, ALICE, 5, 'before-switch');
    const firstClusterId = (await world.log().status()).header.clusterId;
    const secondClusterId = (await secondLog.status()).header.clusterId;
    expect(secondClusterId).not.toBe(firstClusterId);
    const held = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const heldKey = world.key('held-across-switch');
    before.push((await arbiter.acquire(authenticated(BOB), { sessionId: held.sessionId, key: heldKey, className: FENCED.name, waitMs: 0 })).token);

    switchable.target = secondLog; // the log behind the arbiter is now another cluster
    const acquire = await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: held.sessionId, key: world.key('after-switch'), className: FENCED.name, waitMs: 0 }));
    expect([acquire.code, acquire.seal]).toEqual(['sealed', { kind: 'cluster-id-mismatch', expected: firstClusterId, seen: secondClusterId }]);
    const keepAlive = await lockErrorOf(arbiter.keepAlive(authenticated(BOB), { sessionId: held.sessionId }));
    expect([keepAlive.code, keepAlive.seal?.kind]).toEqual(['sealed', 'cluster-id-mismatch']);
    expect((await arbiter.status()).sealed?.kind).toBe('cluster-id-mismatch');
    expect((await secondLog.range({ key: '/l/', prefix: true })).count).toBe(0); // the sealed arbiter granted nothing there

    const oneApprover = await lockErrorOf(advanceEpochByTwo(arbiter, [OPERATORS[0], OPERATORS[0]], REASON));
    expect(oneApprover.code).toBe('approval-required');
    expect((await arbiter.status()).sealed?.kind).toBe('cluster-id-mismatch');

    const advanced = await advanceEpochByTwo(arbiter, OPERATORS, REASON);
    // The new cluster now carries an epoch record bound to its own ID, and the arbiter serves it.
    const record = parseEpochRecord((await secondLog.range({ key: EPOCH_KEY })).kvs[0]?.value ?? '');
    expect(record).toEqual({ epoch: advanced.epoch, clusterId: secondClusterId });
    const status = await arbiter.status();
    expect([status.sealed, status.clusterId]).toEqual([undefined, secondClusterId]);

    const after = await issueTokens(arbiter, ALICE, 3, 'after-switch');
    expect(after[0]).toBeGreaterThan(max(before));
  });

  it('seals on a revision regression when a member is wiped and restarted with the same cluster token (same cluster ID), and serves again with higher tokens after an epoch advance', async () => {
    const restored = await world.startCluster();
    const log = world.openLog(restored.endpoints);
    const arbiter = world.arbiter({ log });
    const session = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    await writeJunk(log, 100); // drive the revision well above what a fresh member starts at
    const before = await issueTokens(arbiter, ALICE, 3, 'before-wipe');
    const headerBefore = (await log.status()).header;

    await restored.wipeMember(0);
    await restored.startMember(0);
    const headerAfter = (await log.status()).header;
    // etcd's side of the premise (ADR-03, etcd-behaviour.md §5.1): same member and cluster ID, revision reset.
    expect([headerAfter.clusterId, headerAfter.memberId]).toEqual([headerBefore.clusterId, headerBefore.memberId]);
    expect(headerAfter.revision).toBeLessThan(headerBefore.revision);

    // The next linearizable call (the grant txn) is answered below the revision the arbiter last saw.
    const acquire = await lockErrorOf(arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: world.key('after-wipe'), className: FENCED.name, waitMs: 0 }));
    const expectedSeal = { kind: 'revision-regression', highestSeen: headerBefore.revision, seen: headerAfter.revision };
    expect([acquire.code, acquire.seal]).toEqual(['sealed', expectedSeal]);
    const sealedStatus = await arbiter.status();
    expect([sealedStatus.sealed, sealedStatus.clusterId]).toEqual([expectedSeal, headerBefore.clusterId]);

    const advanced = await advanceEpochByTwo(arbiter, OPERATORS, REASON);
    expect(advanced.clusterId).toBe(headerBefore.clusterId);
    expect((await arbiter.status()).sealed).toBeUndefined();
    const after = await issueTokens(arbiter, ALICE, 3, 'after-wipe');
    expect(after[0]).toBeGreaterThan(max(before));
    // The session from before the wipe died with the data: it cannot carry holds into the new epoch.
    const stale = await lockErrorOf(arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: world.key('old-session'), className: FENCED.name, waitMs: 0 }));
    expect(stale.code).toBe('session-expired');
  });

  it('one two-person advance reopens every arbiter replica on the log, not only the one it went through', async () => {
    const second = await world.startCluster({ init: false }); // a replacement cluster: no epoch record
    const secondLog = world.openLog(second.endpoints);
    const switchable = new DelegatingLockLog(world.log());
    const through = world.arbiter({ log: switchable, pollIntervalMs: 50 });
    const replica = world.arbiter({ log: switchable, pollIntervalMs: 50 });
    const before = [...(await issueTokens(through, ALICE, 2, 'replica-a')), ...(await issueTokens(replica, BOB, 2, 'replica-b'))];

    switchable.target = secondLog;
    expect((await lockErrorOf(issueTokens(replica, BOB, 1, 'replica-sealed'))).code).toBe('sealed');
    expect((await through.status()).sealed).toBeUndefined(); // not yet asked anything of the new log
    expect((await lockErrorOf(issueTokens(through, ALICE, 1, 'through-sealed'))).code).toBe('sealed');

    await advanceEpochByTwo(through, OPERATORS, REASON);
    await new Promise((resolve) => setTimeout(resolve, 100)); // past the replica's check interval
    expect((await replica.status()).sealed).toBeUndefined();
    const after = await issueTokens(replica, BOB, 2, 'replica-after');
    expect(after[0]).toBeGreaterThan(max(before));
  });

  it('seals on an epoch record below one it has already served (a restore the revision floor cannot see), minting nothing with it', async () => {
    const restored = await world.startCluster();
    const log = world.openLog(restored.endpoints);
    const arbiter = world.arbiter({ log });
    const { epoch } = await advanceEpochByTwo(arbiter, OPERATORS, REASON);
    const before = await issueTokens(arbiter, ALICE, 2, 'before-old-record');
    // What a same-ID restore of a snapshot from before the advance brings back once its revision is
    // bumped above every one served (etcdutl --bump-revision): the old record, at a higher revision.
    const clusterId = (await log.status()).header.clusterId;
    await log.txn({ compare: [], success: [{ type: 'put', key: EPOCH_KEY, value: formatEpochRecord({ epoch: epoch - 1, clusterId }) }], failure: [] });

    const session = await world.session(world.arbiter({ log }), BOB, FENCED.ttlSeconds);
    const key = world.key('after-old-record');
    // Before the fix the grant's failed epoch compare reloaded the record and adopted the lower epoch: the
    // next grant minted a token below every one issued before.
    const refused = await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 }));
    expect([refused.code, refused.seal]).toEqual(['sealed', { kind: 'epoch-regression', highestSeen: epoch, seen: epoch - 1 }]);
    expect((await log.range({ key: '/l/', prefix: true })).kvs.map((kv) => kv.key)).toEqual([]);
    expect(before.length).toBe(2);
  });
});
