// The leader-kill availability goal through `lockstep serve` (issue 12), on a real 3-member etcd: two
// serve processes, each dialling a follower first (the case that cost 7 s: a release forwarded to the
// dead leader waited out etcd's request timeout). A holder through one arbiter holds a key, a waiter
// through the other waits in line; the leader is SIGKILLed and the holder releases at once. The release
// must be answered `released` (retried on another member, not `indeterminate`), and the waiter granted
// inside its wait. Outcomes only: the times from the fault are the bench's to report (bench/leader-kill.ts);
// LOCKSTEP_PRINT_FIGURES=1 prints this run's.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEtcdLockLog, initEtcdLog } from '../etcd/index.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-serve-leader-'));
const CLASS = 'svc-leader';
const idOf = (name: string): string => `spiffe://lockstep.test/ns/payments/sa/${name}`;
let cluster: EtcdCluster;
const servers: LockstepProcess[] = [];
let killed: number | undefined;

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 3, namePrefix: 'svcleader' });
  await initEtcdLog(cluster.endpoints);
});

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  if (killed !== undefined) await cluster?.startMember(killed).catch(() => undefined);
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function leaderIndex(): Promise<number> {
  const statuses = await Promise.all(cluster.endpoints.map(async (endpoint) => {
    const log = createEtcdLockLog({ endpoints: [endpoint] });
    try {
      return await log.status();
    } finally {
      await log.close();
    }
  }));
  const leader = statuses.findIndex((s) => s.header.memberId === s.leader);
  if (leader < 0) throw new Error('no member says it is the leader');
  return leader;
}

describe('a leader killed under a holder that releases through lockstep serve (real 3-member etcd)', () => {
  it('the release is answered released and the waiter through the other arbiter is granted', { timeout: 120_000 }, async () => {
    const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
    await mkdir(dirs.classes);
    await mkdir(dirs.grants);
    await writeFencedClass(dirs.classes, CLASS, 15);
    const grants = ['holder', 'waiter'].map((name) => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: payments }`, `spec: { identity: "${idOf(name)}", prefixes: [payments/] }`].join('\n'));
    await writeFile(join(dirs.grants, 'grants.yaml'), `${grants.join('\n---\n')}\n`);
    await cluster.waitUntilHealthy();
    const leader = await leaderIndex();
    const [f0, f1] = [0, 1, 2].filter((i) => i !== leader) as [number, number];
    const at = (order: readonly number[]) => order.map((i) => (cluster.endpoints[i] ?? '').replace('http://', '')).join(',');
    const ports = (await freePorts(2)) as [number, number];
    const orders = [[f0, leader, f1], [f1, f0, leader]];
    for (const [i, port] of ports.entries()) {
      servers.push(startLockstep(['serve', '--endpoints', at(orders[i] ?? []), '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`]));
    }
    await Promise.all(servers.map((s) => s.waitForStderr(/serving lock\.v1/, 30_000)));
    const holder = new NetworkArbiter({ addresses: [`127.0.0.1:${ports[0]}`], identity: idOf('holder') });
    const waiter = new NetworkArbiter({ addresses: [`127.0.0.1:${ports[1]}`], identity: idOf('waiter') });
    try {
      const key = 'payments/leader-kill';
      const hs = await holder.openSession({ ttlSeconds: 15 });
      const ws = await waiter.openSession({ ttlSeconds: 15 });
      const grant = await holder.acquire({ sessionId: hs.sessionId, key, className: CLASS, waitMs: 0 });
      const waiting = waiter.acquire({ sessionId: ws.sessionId, key, className: CLASS, waitMs: 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the waiter is in line
      const faultMs = performance.now();
      await cluster.kill(leader);
      killed = leader;
      const release = await holder.release({ sessionId: hs.sessionId, key, token: grant.token }).then((r) => r, (e: unknown) => ({ error: String(e) }));
      const releasedAfterMs = performance.now() - faultMs;
      const granted = await waiting.then((g) => g, (e: unknown) => ({ error: String(e) }));
      const grantedAfterMs = performance.now() - faultMs;
      if (process.env.LOCKSTEP_PRINT_FIGURES === '1') process.stderr.write(`serve leader-kill: release answered after ${Math.round(releasedAfterMs)} ms, waiter granted after ${Math.round(grantedAfterMs)} ms\n`);
      expect(release).toEqual({ released: true });
      expect('identity' in granted ? granted.identity : granted).toBe(idOf('waiter'));
      if ('token' in granted) await waiter.release({ sessionId: ws.sessionId, key, token: granted.token });
      await Promise.all([holder.closeSession({ sessionId: hs.sessionId }), waiter.closeSession({ sessionId: ws.sessionId })]);
    } finally {
      holder.close();
      waiter.close();
    }
  });
});
