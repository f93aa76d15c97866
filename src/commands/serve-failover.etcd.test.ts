// Killing one of two `lockstep serve` arbiters mid-wait (issue 12): the waiters of a key are in line on
// the arbiter the key routes to (rendezvous, ADR-14/18). That arbiter is SIGKILLed while a holder works
// and a `lockstep lock --arbiter A,B` client waits; the client's wait moves to the other arbiter and it is
// granted within its --wait, after the holder's command ended (no overlap). The control: a client given
// only the killed arbiter's address cannot move, and fails instead of being granted.
//
// Found by this test: a waiter whose acquire is in line on the arbiter when it dies gets `indeterminate`
// (its HTTP/2 stream is cancelled after the call was sent), and core/client/lock-client.ts handed that to
// the caller (exit 5). It now asks again on the same session for what is left of the wait, which the
// transport sends to the other arbiter; a grant the dead one made is returned, not repeated.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-serve-failover-'));
const CLASS = 'svc-failover';
const CLIENTS = ['holder', 'mover', 'stuck'];
const idOf = (name: string): string => `spiffe://lockstep.test/ns/payments/sa/${name}`;
const WAIT_S = 25;
let cluster: EtcdCluster;
const started: LockstepProcess[] = [];

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1, namePrefix: 'failover' });
  const log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
  await log.close();
});

afterAll(async () => {
  for (const process of started) process.child.kill('SIGKILL');
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('two lockstep serve arbiters, one killed mid-wait', () => {
  it('the waiter moves to the other arbiter and is granted within its deadline; a client of the killed one alone is not', { timeout: 120_000 }, async () => {
    const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
    await mkdir(dirs.classes);
    await mkdir(dirs.grants);
    const classFile = await writeFencedClass(dirs.classes, CLASS, 5);
    const grants = CLIENTS.map((name) => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: payments }`, `spec: { identity: "${idOf(name)}", prefixes: [payments/] }`].join('\n'));
    await writeFile(join(dirs.grants, 'grants.yaml'), `${grants.join('\n---\n')}\n`);
    const ports = (await freePorts(2)) as [number, number];
    const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
    const servers = ports.map((port) => {
      const server = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`]);
      started.push(server);
      return server;
    });
    await Promise.all(servers.map((s) => s.waitForStderr(/serving lock\.v1/, 30_000)));
    const addresses = ports.map((p) => `127.0.0.1:${p}`);

    const key = 'payments/failover';
    // The arbiter the key routes to: where the line is, and the one to kill.
    const routed = new NetworkArbiter({ addresses, identity: idOf('holder') }).orderFor(key)[0]?.address as string;
    const doomed = servers[addresses.indexOf(routed)] as LockstepProcess;
    const journal = join(scratch, 'journal.txt');
    await writeFile(journal, '');
    const lock = (name: string, arbiters: readonly string[], command: string) => {
      const run = startLockstep(['lock', '--arbiter', arbiters.join(','), '--identity', idOf(name), '--class', classFile, '--wait', `${WAIT_S}s`, key, '--', 'sh', '-c', command]);
      started.push(run);
      return run;
    };
    const holder = lock('holder', addresses, `echo "holder start" >> ${journal}; sleep 4; echo "holder end" >> ${journal}`);
    for (let i = 0; i < 300 && (await readFile(journal, 'utf8')) === ''; i++) await sleep(100);
    const mover = lock('mover', addresses, `echo "mover start" >> ${journal}`);
    const stuck = lock('stuck', [routed], `echo "stuck start" >> ${journal}`);
    await sleep(1_500); // both are in line on the routed arbiter by now (a process starts in well under that)
    const killedAtMs = performance.now();
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    const [holderExit, moverExit, stuckExit] = await Promise.all([holder, mover, stuck].map((run) => run.exited));
    const moverDoneMs = performance.now() - killedAtMs;
    expect(holderExit?.code, holder.stderr()).toBe(0);
    expect(moverExit?.code, mover.stderr()).toBe(0);
    expect(moverDoneMs).toBeLessThan(WAIT_S * 1000); // within its deadline (the wait began before the kill)
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['holder start', 'holder end', 'mover start']); // no overlap
    // The control: its only arbiter is gone, so it is never granted.
    expect(stuckExit?.code, stuck.stderr()).not.toBe(0);
    expect(lines).not.toContain('stuck start');
  });
});
