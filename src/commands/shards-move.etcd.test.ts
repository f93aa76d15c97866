// `lockstep shards move` against real clusters (issue 19): a `lockstep serve --topology` arbiter as a real
// process over a real coord cluster and two real entity shards, with real mTLS, and the CLI as real
// processes run by two operators. Keys are routed to their shard by the shard map; a move requested by
// one operator is refused to the same operator's approval, runs on the second's, and survives the
// arbiter being SIGKILLed mid-drain: the same request and approval, on a new arbiter, resume it from the
// coord cluster's journal. The range is then served by the destination (the arbiter watched the map, no
// restart) with tokens above every token the source issued, and a used approval is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holderKeyOf, parseLockKey } from '../../core/lock-key.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { moveKey, parseMoveRecord } from '../../core/shards/coord-move-store.js';
import type { FencingToken } from '../../core/units.js';
import type { CertFiles } from '../service/dev-certs.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep } from '../testing/lockstep-process.js';
import { CLASS_NAME, CLASS_TTL_SECONDS, COORD_NAME, type TopologyWorld, startTopologyWorld } from '../testing/topology-fixture.js';
import { readFile } from 'node:fs/promises';

let world: TopologyWorld;
let port: number;
const servers: LockstepProcess[] = [];

beforeAll(async () => {
  world = await startTopologyWorld();
  [port] = (await freePorts(1)) as [number];
}, 120_000);

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await world?.stop();
});

async function serve(): Promise<LockstepProcess> {
  const server = startLockstep(['serve', '--topology', world.topologyFile, '--classes', world.dirs.classes, '--grants', world.dirs.grants, '--listen', `127.0.0.1:${port}`, '--tls-cert', world.server.cert, '--tls-key', world.server.key, '--client-ca', world.ca.cert]);
  servers.push(server);
  await server.waitForStderr(/serving lock\.v1/, 30_000);
  return server;
}

async function client(name: string): Promise<NetworkArbiter> {
  const files = world.certs.get(name) as CertFiles;
  const [cert, key, ca] = await Promise.all([readFile(files.cert), readFile(files.key), readFile(world.ca.cert)]);
  return new NetworkArbiter({ addresses: [`127.0.0.1:${port}`], tls: { cert, key, ca } });
}

function move(operator: string, ...extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const files = world.certs.get(operator) as CertFiles;
  return runLockstep(['shards', 'move', '--from', 'shard-a', '--to', 'shard-b', '--range', world.range, '--arbiter', `127.0.0.1:${port}`, '--tls-cert', files.cert, '--tls-key', files.key, '--ca', world.ca.cert, '--json', ...extra]);
}

async function request(operator: string): Promise<{ requestId: string; recordedStep?: string }> {
  const run = await move(operator, '--reason', 'rebalance payments onto shard-b (real-etcd test)');
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { requestId: string; recordedStep?: string };
}

const heldOn = async (shard: string, key: string): Promise<boolean> => ((await (world.logs.get(shard) as LockLog).range({ key: holderKeyOf(parseLockKey(key)) })).kvs.length > 0);

describe('lockstep shards move, two operators, against a real coord cluster and two real entity shards', () => {
  it('routes by the map, refuses a self-approval, resumes after the arbiter is killed mid-drain, and the moved range is served by the destination with higher tokens', async () => {
    let server = await serve();
    const worker = await client('worker');
    const session = await worker.openSession({ ttlSeconds: CLASS_TTL_SECONDS });
    const grant = (key: string) => worker.acquire({ sessionId: session.sessionId, key, className: CLASS_NAME, waitMs: 0 });

    // Tokens the source issued in the range, each hold on shard-a's log (routed there by the map).
    const sourceTokens: FencingToken[] = [];
    for (const path of ['a', 'b']) {
      const held = await grant(`${world.range}/${path}`);
      expect(await heldOn('shard-a', held.key)).toBe(true);
      expect(await heldOn('shard-b', held.key)).toBe(false);
      sourceTokens.push(held.token);
      await worker.release({ sessionId: session.sessionId, key: held.key, token: held.token });
    }
    const kept = await grant(`${world.range}/kept`); // outlives the drain's start
    sourceTokens.push(kept.token);

    // Ana requests; her own approval is refused and uses nothing up.
    const first = await request('ana');
    expect(first.recordedStep).toBeUndefined();
    const self = await move('ana', '--approve', first.requestId);
    expect(self.code).toBe(5);
    expect(self.stderr).toMatch(/cannot approve it too; a second, different operator must approve/);

    // Ben approves: the move drains and waits for the kept hold; the arbiter is killed there.
    const approving = move('ben', '--approve', first.requestId);
    await server.waitForStderr(/shard map v3 /, 30_000); // pinned (v2), then draining (v3)
    const refused = await grant(`${world.range}/new`).then(() => 'granted', (error: { code?: string }) => error.code);
    expect(refused).toBe('draining');
    server.child.kill('SIGKILL');
    await server.exited;
    expect((await approving).code).not.toBe(0);
    const journal = parseMoveRecord((await (world.logs.get(COORD_NAME) as LockLog).range({ key: moveKey(world.range) })).kvs[0]?.value ?? '');
    expect(['pinned', 'draining']).toContain(journal?.step);

    // A new arbiter; the hold ends; the same request and approval resume the recorded move.
    server = await serve();
    await worker.release({ sessionId: session.sessionId, key: kept.key, token: kept.token });
    const again = await request('ana');
    expect(again.recordedStep).toBe(journal?.step);
    const approved = await move('ben', '--approve', again.requestId);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toMatch(/approves .*drains .* advances shard-b's epoch/); // the progress line
    const done = JSON.parse(approved.stdout.trim()) as { step: string; requester: string; approver: string; fromEpoch: number; toEpoch: number; mapVersion: number };
    expect(done).toMatchObject({ step: 'flipped', requester: 'spiffe://lockstep.test/ops/ana', approver: 'spiffe://lockstep.test/ops/ben', mapVersion: 4 });
    expect(done.toEpoch).toBeGreaterThan(done.fromEpoch);

    // A second approval of the used request is refused, whoever sends it.
    const twice = await move('ben', '--approve', again.requestId);
    expect(twice.code).toBe(5);
    expect(twice.stderr).toMatch(/no shard-move request .* is waiting on this arbiter/);

    // The running arbiter took the flip from its watch of the map: the range is served by shard-b.
    await server.waitForStderr(/shard map v4 /, 30_000);
    const fresh = await worker.openSession({ ttlSeconds: CLASS_TTL_SECONDS });
    for (const path of ['a', 'b', 'kept']) {
      const moved = await worker.acquire({ sessionId: fresh.sessionId, key: `${world.range}/${path}`, className: CLASS_NAME, waitMs: 0 });
      expect(await heldOn('shard-b', moved.key)).toBe(true);
      expect(await heldOn('shard-a', moved.key)).toBe(false);
      for (const token of sourceTokens) expect(moved.token).toBeGreaterThan(token);
    }
    worker.close();
  }, 180_000);
});
