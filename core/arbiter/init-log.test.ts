// initLog on real etcd (ADR-03, issue 11 S3): the operator's first step writes the epoch record once, bound
// to the cluster's ID, and refuses any log that is not new; an arbiter serves only after it.
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ALICE, FENCED, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { initLog } from './init-log.js';
import { EPOCH_KEY, parseEpochRecord } from './records.js';

const world = useArbiterWorld();

describe('initLog on real etcd', () => {
  it('writes epoch 1 bound to the cluster ID on a new log, after which an arbiter serves; a second init is refused', async () => {
    const cluster = await world.startCluster({ init: false });
    const log = world.openLog(cluster.endpoints);
    const arbiter = world.arbiter({ log, pollIntervalMs: 50 });
    expect((await lockErrorOf(arbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds }))).seal?.kind).toBe('no-epoch-record');

    const result = await initLog(log);
    const clusterId = (await log.status()).header.clusterId;
    expect([result.epoch, result.clusterId]).toEqual([1, clusterId]);
    expect(parseEpochRecord((await log.range({ key: EPOCH_KEY })).kvs[0]?.value ?? '')).toEqual({ epoch: 1, clusterId });

    // The arbiter that sealed on the missing record reopens by itself once the record exists.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const session = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: world.key('after-init'), className: FENCED.name, waitMs: 0 });
    expect(grant.epoch).toBe(1);

    const again = await lockErrorOf(initLog(log));
    expect(again.code).toBe('invalid-argument');
    expect(again.message).toContain('epoch record');
  });

  it('refuses a log that holds lockstep keys but no epoch record (a wiped record is not a new log), writing nothing', async () => {
    const cluster = await world.startCluster({ init: false });
    const log = world.openLog(cluster.endpoints);
    await log.txn({ compare: [], success: [{ type: 'put', key: '/l/payments/left-behind', value: '{}' }], failure: [] });
    const before = await world.revision(log);
    const error = await lockErrorOf(initLog(log));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toContain('/l/payments/left-behind');
    expect(await world.revision(log)).toBe(before);
  });

  it('starts a replacement log at the epoch the operator names, and refuses an epoch outside 1..2^15-1', async () => {
    const cluster = await world.startCluster({ init: false });
    const log = world.openLog(cluster.endpoints);
    for (const epoch of [0, -1, 1.5, 2 ** 15]) expect((await lockErrorOf(initLog(log, { epoch }))).code).toBe('invalid-argument');
    expect((await log.range({ key: EPOCH_KEY })).count).toBe(0);
    expect((await initLog(log, { epoch: 7 })).epoch).toBe(7);
    expect(parseEpochRecord((await log.range({ key: EPOCH_KEY })).kvs[0]?.value ?? '')?.epoch).toBe(7);
  });
});
