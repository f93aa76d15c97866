// Issue 19 on real etcd: two clusters, a coord one and an entity shard, and the entity cluster restored
// from an old backup with `etcdctl snapshot restore` and the same cluster token, as an operator would in
// a hurry. The restored cluster has the same cluster ID (etcd derives it from the member's name, peer URL
// and token) and its revision back at the snapshot's, so ADR-03's cluster-ID seal cannot see it, and an
// arbiter started after the restore has no memory of the revisions it served. With epochs from the coord
// cluster (ADR-07) a fresh arbiter seals all the same, and after the two-person advance the next grant's
// token is above every token issued before. Single-cluster mode is the negative control: it serves the
// restored log and mints a token at or below one already handed out.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoordEpochSource, registerOnCoord } from '../../core/arbiter/coord-epochs.js';
import type { Arbiter } from '../../core/arbiter/arbiter.js';
import { EPOCH_KEY, parseEpochRecord } from '../../core/arbiter/records.js';
import { advanceEpochByTwo } from '../../core/arbiter/two-person.js';
import { authenticated } from '../../core/ports/caller.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { unpackToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';
import { ALICE, FENCED, OPERATORS, lockErrorOf, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { ensureEtcdctl, restoreSnapshot, saveSnapshot } from '../testing/etcdctl.js';

const world = useArbiterWorld();
const CLUSTER_NAME = 'orders-etcd';
let scratch = '';

beforeAll(async () => {
  await ensureEtcdctl(); // installs Debian's etcd-client when missing (as root), like the server
  scratch = await mkdtemp(join(tmpdir(), 'lockstep-coord-restore-'));
});
afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
});

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

describe('an entity cluster restored from an old snapshot with etcdctl (same token), epochs from the coord cluster', () => {
  it('seals a fresh arbiter, and after the advance the next token is above every token issued before; single-cluster mode mints a regressed one', async () => {
    const coordCluster = await world.startCluster({ init: false });
    const entity = await world.startCluster();
    const coordLog = world.openLog(coordCluster.endpoints);
    const log = world.openLog(entity.endpoints);
    const kv = (await log.range({ key: EPOCH_KEY })).kvs[0];
    const record = parseEpochRecord(kv?.value ?? '');
    if (kv === undefined || record === undefined) throw new Error('the entity cluster was not initialised');
    await registerOnCoord(coordLog, CLUSTER_NAME, { ...record, highestRevision: kv.modRevision });
    const coordArbiter = (): Arbiter => world.arbiter({ log, epochSource: new CoordEpochSource(coordLog, CLUSTER_NAME) });

    // The backup, taken early; then the log moves on, and tokens above the snapshot are handed out.
    const early = await issueTokens(coordArbiter(), 2, 'early');
    const snapshot = join(scratch, 'entity-old.db');
    const member = entity.members[0];
    if (member === undefined) throw new Error('the entity cluster has no member');
    await saveSnapshot(member.clientUrl, snapshot);
    const snapshotRevision = await world.revision(log);
    await writeJunk(log, 60);
    const late = await issueTokens(coordArbiter(), 3, 'late');
    const before = [...early, ...late];
    expect(unpackToken(max(late)).revision).toBeGreaterThan(snapshotRevision);

    // The restore: stop the member, `etcdctl snapshot restore` with its name, peer URL and the same token.
    const clusterIdBefore = (await log.status()).header.clusterId;
    await entity.wipeMember(0);
    await restoreSnapshot({ snapshot, name: member.name, peerUrl: member.peerUrl, clusterToken: entity.clusterToken, dataDir: member.dataDir });
    await entity.startMember(0);
    const restored = await log.status();
    expect(restored.header.clusterId).toBe(clusterIdBefore); // the same cluster ID: the cluster-ID seal alone cannot see it
    expect(restored.header.revision).toBeLessThan(unpackToken(max(late)).revision);

    // Negative control: an arbiter in single-cluster mode, started after the restore, serves the restored
    // log, and its first token is below one already handed out (the old record, the old revisions).
    const regressed = await issueTokens(world.arbiter({ log }), 1, 'single-cluster');
    expect(regressed[0]).toBeLessThan(max(before));

    // Coord mode: the coord cluster recorded the highest revision handed out, so a fresh arbiter seals.
    const fresh = coordArbiter();
    const refused = await lockErrorOf(fresh.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds }));
    expect([refused.code, refused.seal?.kind]).toEqual(['sealed', 'revision-regression']);
    const advanced = await advanceEpochByTwo(fresh, OPERATORS, 'restored the orders lock log from an old snapshot (real etcd test)');
    expect(advanced.epoch).toBe(record.epoch + 1);
    const after = await issueTokens(fresh, 2, 'after-advance');
    const next = after[0];
    if (next === undefined) throw new Error('no token after the advance');
    for (const earlier of [...before, ...regressed]) expect(next).toBeGreaterThan(earlier);
  });
});
