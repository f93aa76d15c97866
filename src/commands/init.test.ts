// `lockstep init` and `lockstep lock` on a real etcd (issue 11 S3): lock never creates an epoch record and
// refuses an uninitialised log naming the fix; init writes the record once; a log that is not new (an
// epoch record, or any lockstep key) is refused; and a wiped cluster is not silently given epoch 1 again.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCKSTEP_PREFIXES } from '../../core/arbiter/init-log.js';
import { EPOCH_KEY, parseEpochRecord } from '../../core/arbiter/records.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { parseToken, unpackToken } from '../../core/token.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { runLockstep } from '../testing/lockstep-process.js';
import { runCli } from '../testing/run-cli.js';

const CLASS = 'examples/classes/ledger-writes.yaml';

describe('lockstep init: bad input exits 2 naming the flag, before anything is dialled', () => {
  it.each([
    [['--endpoints', 'nonsense'], /--endpoints "nonsense": "nonsense" is not host:port/],
    [['--endpoints', '127.0.0.1:99999'], /--endpoints "127.0.0.1:99999": .*port 99999 is not from 1 to 65535/],
    [['--endpoints', '127.0.0.1:9', '--epoch', 'two'], /--epoch "two" is not a whole number/],
    [['--endpoints', '127.0.0.1:9', '--epoch', '32768'], /epoch 32768 must be an integer from 1 to 32767/],
  ])('%j', async (args, message) => {
    const { code, err } = await runCli('init', ...args);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(message);
  });

  it('says in --help why --epoch exists', async () => {
    const { code, out } = await runCli('init', '--help');
    expect(code).toBe(0);
    expect(out.join(' ').replace(/\s+/g, ' ')).toMatch(/replaces one which already served tokens.*issue 19/);
  });

  it('exits 5 naming the endpoints when etcd cannot be reached', async () => {
    const { code, err } = await runCli('init', '--endpoints', '127.0.0.1:9');
    expect(code).toBe(5);
    expect(err.join('\n')).toMatch(/could not initialise the lock log at http:\/\/127\.0\.0\.1:9: unavailable/);
  });
});

describe('lockstep init and lock on a real etcd', () => {
  let cluster: EtcdCluster;
  let log: LockLog;
  let dir: string;
  let endpoint: string;
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 1 });
    endpoint = cluster.endpoints[0] ?? '';
    log = createEtcdLockLog({ endpoints: cluster.endpoints });
    dir = await mkdtemp(join(tmpdir(), 'lockstep-init-'));
  });
  afterAll(async () => {
    await log?.close();
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** `lockstep lock` whose command writes the token it was given to a file; returns the exit and that token. */
  async function lock(key: string): Promise<{ code: number | null; stderr: string; token: bigint | undefined }> {
    const tokenFile = join(dir, `token-${key.replace(/\W/g, '-')}-${Date.now()}`);
    const run = await runLockstep(['lock', '--endpoints', endpoint, '--class', CLASS, '--identity', 'svc-init-test', `payments/${key}`, '--', 'sh', '-c', 'printf %s "$LOCKSTEP_TOKEN" > "$0"', tokenFile]);
    const text = await readFile(tokenFile, 'utf8').catch(() => undefined);
    return { code: run.code, stderr: run.stderr, token: text === undefined ? undefined : parseToken(text) };
  }

  async function lockstepKeys(): Promise<string[]> {
    const found = await Promise.all(LOCKSTEP_PREFIXES.map((prefix) => log.range({ key: prefix, prefix: true })));
    return found.flatMap((response) => response.kvs.map((kv) => kv.key));
  }

  async function revisionNow(): Promise<bigint> {
    return (await log.range({ key: EPOCH_KEY })).header.revision;
  }

  async function expectRefusedAsUninitialised(key: string): Promise<void> {
    const before = await revisionNow();
    const refused = await lock(key);
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.stderr).toContain('no-epoch-record');
    expect(refused.stderr).toContain(`lockstep init --endpoints ${endpoint}`);
    expect(refused.token).toBeUndefined(); // the command never ran
    expect(await lockstepKeys()).toEqual([]); // lock wrote nothing: no epoch record, no session, no hold
    expect(await revisionNow()).toBe(before);
  }

  it('refuses to lock a new log, then init writes epoch 1 once, lock works, and a second init is refused', async () => {
    await expectRefusedAsUninitialised('before-init');

    const init = await runCli('init', '--endpoints', endpoint, '--json');
    expect(init.code, init.err.join('\n')).toBe(0);
    const reported = JSON.parse(init.out.join('')) as { ok: boolean; epoch: number; clusterId: string };
    const clusterId = (await log.status()).header.clusterId;
    expect(reported).toMatchObject({ ok: true, epoch: 1, clusterId: clusterId.toString(16) });
    expect(parseEpochRecord((await log.range({ key: EPOCH_KEY })).kvs[0]?.value ?? '')).toEqual({ epoch: 1, clusterId });

    const locked = await lock('after-init');
    expect(locked.code, locked.stderr).toBe(0);
    expect(unpackToken(locked.token as never).epoch).toBe(1);

    const again = await runCli('init', '--endpoints', endpoint);
    expect(again.code).toBe(2);
    expect(again.err.join('\n')).toMatch(/refused for .*already holds an epoch record/);
  });

  it('does not re-bootstrap a wiped cluster: lock refuses, init refuses a left-over lockstep key, init --epoch starts above', async () => {
    const beforeWipe = await lock('before-wipe');
    expect(beforeWipe.code, beforeWipe.stderr).toBe(0);
    // Wiped and restarted on the same endpoint: same cluster ID (etcd derives it from the peer URLs and
    // token) and revisions from 1 again, so epoch 1 again would issue the pre-wipe token again.
    await cluster.wipeMember(0);
    await cluster.startMember(0);
    await expectRefusedAsUninitialised('after-wipe');

    await log.txn({ compare: [], success: [{ type: 'put', key: '/q/payments/after-wipe/1', value: '{}' }], failure: [] });
    const refused = await runCli('init', '--endpoints', endpoint, '--json');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.out.join(''))).toMatchObject({ ok: false, code: 'invalid-argument', message: expect.stringContaining('/q/payments/after-wipe/1') });
    expect((await log.range({ key: EPOCH_KEY })).count).toBe(0);

    await log.txn({ compare: [], success: [{ type: 'delete', key: '/q/', prefix: true }], failure: [] });
    const replacement = await runCli('init', '--endpoints', endpoint, '--epoch', '2');
    expect(replacement.code, replacement.err.join('\n')).toBe(0);
    expect(replacement.out.join('\n')).toMatch(/epoch 2/);
    const afterInit = await lock('after-wipe');
    expect(afterInit.code, afterInit.stderr).toBe(0);
    expect(unpackToken(afterInit.token as never).epoch).toBe(2);
    expect(afterInit.token).toBeGreaterThan(beforeWipe.token ?? 0n); // tokens did not go backwards
  });
});
