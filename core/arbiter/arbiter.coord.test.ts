// Epochs from the coord cluster on real etcd (issue 19, ADR-03/07): two clusters, a coord one and an entity
// shard. The entity member is wiped and booted again with the same name, peer URL and token (the same
// cluster ID, its revision back near 1), and given back the epoch record it had: what a same-token restore
// of an early snapshot looks like. (The same with a real `etcdctl snapshot restore`, from Debian's
// etcd-client package: src/etcd/coord-restore.etcd.test.ts.) A fresh arbiter in single-cluster mode serves it and
// mints tokens below earlier ones (the negative control); one in coord mode seals, and after the advance
// every token is above every token issued before.
import { describe, expect, it } from 'vitest';
import { ALICE, FENCED, OPERATORS, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { authenticated } from '../ports/caller.js';
import type { LockLog } from '../ports/lock-log.js';
import type { FencingToken } from '../units.js';
import type { Arbiter } from './arbiter.js';
import { CoordEpochSource, registerOnCoord } from './coord-epochs.js';
import { EPOCH_KEY, formatEpochRecord, parseEpochRecord } from './records.js';
import { advanceEpochByTwo } from './two-person.js';

const world = useArbiterWorld();

async function issueTokens(arbiter: Arbiter, count: number, label: string): Promise<FencingToken[]> {
  const session = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
  const tokens: FencingToken[] = [];
  for (let i = 0; i < count; i++) {
    const key = world.key(`${label}-${i}`);
    const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
    tokens.push(grant.token);
    await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key, token: grant.token });
  }
  return tokens;
}

async function writeJunk(log: LockLog, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await log.txn({ compare: [], success: [{ type: 'put', key: `/junk/${i}`, value: 'x' }], failure: [] });
}

const max = (tokens: readonly FencingToken[]): FencingToken => tokens.reduce((a, b) => (b > a ? b : a));

describe('epochs from the coord cluster, on real etcd', () => {
  it('a fresh arbiter seals on a same-ID entity log whose revision went back, where single-cluster mode mints regressed tokens; after the advance tokens rise', async () => {
    const coordCluster = await world.startCluster({ init: false });
    const entity = await world.startCluster();
    const coordLog = world.openLog(coordCluster.endpoints);
    const log = world.openLog(entity.endpoints);
    const kv = (await log.range({ key: EPOCH_KEY })).kvs[0];
    const record = parseEpochRecord(kv?.value ?? '');
    if (kv === undefined || record === undefined) throw new Error('the entity cluster was not initialised');
    await registerOnCoord(coordLog, 'orders-etcd', { ...record, highestRevision: kv.modRevision });
    const coordArbiter = (): Arbiter => world.arbiter({ log, epochSource: new CoordEpochSource(coordLog, 'orders-etcd') });

    await writeJunk(log, 60);
    const before = await issueTokens(coordArbiter(), 4, 'before-restore');

    await entity.wipeMember(0);
    await entity.startMember(0);
    await log.txn({ compare: [], success: [{ type: 'put', key: EPOCH_KEY, value: formatEpochRecord(record) }], failure: [] }); // the snapshot's record
    expect((await log.status()).header.clusterId).toBe(record.clusterId); // same cluster ID: the seal alone cannot see it

    // Negative control: single-cluster mode serves the restored log and mints a token below earlier ones.
    const regressed = await issueTokens(world.arbiter({ log }), 1, 'single-cluster');
    expect(regressed[0]).toBeLessThan(max(before));

    const fresh = coordArbiter();
    const session = await lockErrorOf(fresh.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds }));
    expect([session.code, session.seal?.kind]).toEqual(['sealed', 'revision-regression']);
    const advanced = await advanceEpochByTwo(fresh, OPERATORS, 'restored the orders lock log (real etcd test)');
    expect(advanced.epoch).toBe(record.epoch + 1);
    const after = await issueTokens(fresh, 2, 'after-advance');
    expect(after[0]).toBeGreaterThan(max([...before, ...regressed]));
  });
});
