// `lockstep lock --json` as a real process on real etcd: one JSON event per line on stdout (granted with
// the token, released, exit; refused and exit when the key is held), the granted token the one the
// command got in LOCKSTEP_TOKEN, and stderr still free of tokens (ADR-22: the token is printed only in
// the event stream a script asked for). Without --json stdout carries no event: the control.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import { parseToken } from '../../core/token.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { runLockstep, startLockstep } from '../testing/lockstep-process.js';
import { tokenLeaks } from '../testing/token-leak.js';

const CLASS = 'examples/classes/ledger-writes.yaml';
const ID = 'spiffe://lockstep.test/ns/payments/sa/scripted';
let cluster: EtcdCluster;
let dir: string;

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1, namePrefix: 'lockjson' });
  const log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
  await log.close();
  dir = await mkdtemp(join(tmpdir(), 'lockstep-lock-json-'));
});
afterAll(async () => {
  await cluster?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const lockArgs = (key: string, wait: string, command: string, json = true, identity = ID) =>
  ['lock', '--endpoints', cluster.endpoints.join(','), '--class', CLASS, '--identity', identity, '--wait', wait, ...(json ? ['--json'] : []), `payments/${key}`, '--', 'sh', '-c', command];

const events = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('lockstep lock --json', () => {
  it('prints granted (with the token the command got), released and exit, one per line; stderr has no token', { timeout: 120_000 }, async () => {
    const file = join(dir, 'token');
    const run = await runLockstep(lockArgs('json-held', '10s', `printf %s "$LOCKSTEP_TOKEN" > ${file}`));
    expect(run.code).toBe(0);
    const token = parseToken(await readFile(file, 'utf8'));
    const lines = events(run.stdout);
    expect(lines.map((e) => e.event)).toEqual(['granted', 'released', 'exit']);
    expect(lines[0]).toMatchObject({ key: 'payments/json-held', token: token.toString(10) });
    expect(lines[0]?.fenceInMs).toBeGreaterThan(0);
    expect(lines[1]).toMatchObject({ released: true });
    expect(lines[2]).toMatchObject({ code: 0 });
    for (const line of lines) expect(Number.isNaN(Date.parse(String(line.time)))).toBe(false);
    expect(tokenLeaks(run.stderr, [token])).toEqual([]);
    expect(tokenLeaks(run.stdout, [token]).length).toBeGreaterThan(0); // the search finds it where it is meant to be
  });

  it('prints refused and exit 3 for a held key; without --json stdout has no event', { timeout: 120_000 }, async () => {
    const marker = join(dir, 'holding');
    const done = join(dir, 'done');
    // The holder holds until the refused run is over (at most 60 s), not for a fixed time: a slow start of
    // the second lockstep on a loaded machine must not find the key free.
    const holder = startLockstep(lockArgs('json-busy', '10s', `touch ${marker}; i=0; while [ ! -e ${done} ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done`, false, `${ID}-other`));
    try {
      for (let i = 0; i < 300; i++) {
        if (await readFile(marker).then(() => true, () => false)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const refused = await runLockstep(lockArgs('json-busy', '0', 'true'));
      await writeFile(done, '');
      expect(refused.code).toBe(3);
      expect(events(refused.stdout).map((e) => [e.event, e.code])).toEqual([['refused', 'contended'], ['exit', 3]]);
      const held = await holder.exited;
      expect(held.code).toBe(0);
      expect(holder.stdout()).toBe('');
    } finally {
      holder.child.kill('SIGKILL');
    }
  });
});
