// No fencing token in any line a command prints (ADR-22, issue 18 item 3): every command that handles a
// token (lock, on each of its paths: held, contended, fenced; demo; init) is run as a real process on a
// real etcd, and its stdout and stderr are searched for tokens (src/testing/token-leak.ts, whose own test
// holds the negative controls: the lines lockstep printed before). The command still gets its token.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseToken } from '../../core/token.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { runLockstep, startLockstep } from '../testing/lockstep-process.js';
import { tokenLeaks } from '../testing/token-leak.js';

const CLASS = 'examples/classes/ledger-writes.yaml';
const REAL_PROCESS_TIMEOUT_MS = 240_000;

describe('no token in what lockstep prints', () => {
  let cluster: EtcdCluster;
  let dir: string;
  const seenTokens: bigint[] = [];
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 1 });
    dir = await mkdtemp(join(tmpdir(), 'lockstep-no-token-'));
  });
  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const lockArgs = (identity: string, key: string, wait: string, command: readonly string[]) =>
    ['lock', '--endpoints', cluster.endpoints.join(','), '--class', CLASS, '--identity', identity, '--wait', wait, `payments/${key}`, '--', ...command];

  /** A command that keeps the token it was given in `file` and prints only its fingerprint. */
  const keepToken = (file: string, then = 'true') => ['sh', '-c', `printf %s "$LOCKSTEP_TOKEN" > "$0"; echo "my token's fingerprint: $LOCKSTEP_TOKEN_FINGERPRINT"; ${then}`, file];

  async function tokenIn(file: string): Promise<bigint> {
    const token = parseToken(await readFile(file, 'utf8'));
    seenTokens.push(token);
    return token;
  }

  it('init, on a new log and refused on an initialised one', async () => {
    for (const args of [['--json'], [], ['--json']]) {
      const run = await runLockstep(['init', '--endpoints', cluster.endpoints.join(','), ...args]);
      expect(run.code === 0 || run.code === 2, run.stderr).toBe(true);
      expect(tokenLeaks(run.stdout + run.stderr, seenTokens)).toEqual([]);
    }
  }, REAL_PROCESS_TIMEOUT_MS);

  it('lock: held and released, contended, and fenced', async () => {
    const heldFile = join(dir, 'held');
    const held = await runLockstep(lockArgs('svc-held', 'no-token-held', '0s', keepToken(heldFile)));
    expect(held.code, held.stderr).toBe(0);
    const heldToken = await tokenIn(heldFile);
    expect(held.stdout).toMatch(/my token's fingerprint: [0-9a-f]{8}/); // what a command should log instead
    expect(held.stderr).toMatch(/locked payments\/no-token-held \(token fingerprint [0-9a-f]{8}/);

    // A holder that keeps the key while another one is refused, then is fenced when etcd stops answering.
    const fencedFile = join(dir, 'fenced');
    const holder = startLockstep(lockArgs('svc-fenced', 'no-token-fenced', '0s', keepToken(fencedFile, 'sleep 1000')));
    await holder.waitForStderr(/locked payments\/no-token-fenced/);
    const contended = await runLockstep(lockArgs('svc-contender', 'no-token-fenced', '0s', ['true']));
    expect(contended.code, contended.stderr).toBe(3);
    cluster.pauseMember(0);
    try {
      expect((await holder.exited).code, holder.stderr()).toBe(4);
    } finally {
      cluster.resumeMember(0);
      await cluster.waitUntilHealthy();
    }
    const fencedToken = await tokenIn(fencedFile);
    expect(fencedToken).toBeGreaterThan(heldToken);
    for (const output of [held.stdout + held.stderr, contended.stdout + contended.stderr, holder.stdout() + holder.stderr()]) {
      expect(tokenLeaks(output, seenTokens)).toEqual([]);
    }
  }, REAL_PROCESS_TIMEOUT_MS);

  it('demo, in text and in JSON', async () => {
    const [text, json] = await Promise.all([runLockstep(['demo', '--members', '1', '--processes', '2']), runLockstep(['demo', '--members', '1', '--processes', '2', '--json'])]);
    for (const run of [text, json]) {
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(tokenLeaks(run.stdout + run.stderr, seenTokens)).toEqual([]);
    }
    expect(text.stdout).toMatch(/2 distinct tokens, each above the one before: yes/);
    const summary = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}') as { lock?: { order?: string[]; tokensStrictlyIncrease?: boolean } };
    expect(summary.lock?.order).toHaveLength(2);
    expect(summary.lock?.tokensStrictlyIncrease).toBe(true);
  }, REAL_PROCESS_TIMEOUT_MS);
});
