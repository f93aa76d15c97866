// `lockstep pause-test` on real processes: a throwaway etcd (initialised, as `lockstep init` will), a
// throwaway PostgreSQL, and the kit freezing a real first-holder process with SIGSTOP. It passes the
// reference fences and fails the two broken ones (no fence; a check in one statement and the write in
// another), and the result it writes passes `class check` with its class.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { PostgresFence } from '../fences/postgresql.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { type PostgresServer, startPostgres } from '../testing/postgres-server.js';
import { runCli } from '../testing/run-cli.js';

const KIT_TIMEOUT_MS = 240_000; // three or four trials of a 5 s TTL each, on a loaded 2-core machine
const FIXTURES = new URL('../pause-test/fixtures/', import.meta.url).pathname;
const TABLE = 'lockstep_fenced';
const CLASS_YAML = `apiVersion: lockstep.dev/v1
kind: LockClass
metadata:
  name: ledger-writes
  namespace: payments
spec:
  purpose: correctness
  enforcement: fenced
  resource: postgresql://staging-db/lockstep_fenced
  ttlSeconds: 5
  tier: entity
`;

let etcd: EtcdCluster | undefined;
let postgres: PostgresServer | undefined;
let dir = '';
let classFile = '';

beforeAll(async () => {
  [etcd, postgres] = await Promise.all([startEtcdCluster({ members: 1 }), startPostgres()]);
  const log = createEtcdLockLog({ endpoints: etcd.endpoints });
  try {
    await initLog(log); // the operator's first step (lockstep init)
  } finally {
    await log.close();
  }
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    const fence = new PostgresFence(client, TABLE);
    await fence.createTable();
    for (const key of ['payments/no-fence', 'payments/check-then-write']) await fence.createRecord(key);
  } finally {
    await client.end();
  }
  dir = await mkdtemp(join(tmpdir(), 'lockstep-pause-test-'));
  classFile = join(dir, 'ledger-writes.yaml');
  await writeFile(classFile, CLASS_YAML);
}, 600_000);

afterAll(async () => {
  await Promise.all([etcd?.stop(), postgres?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

const base = (): string[] => ['pause-test', '--endpoints', (etcd as EtcdCluster).endpoints.join(','), '--class', classFile];
const timed = async (...argv: string[]) => {
  const started = performance.now();
  const run = await runCli(...argv);
  console.log(`lockstep ${argv.slice(0, 1).concat(argv.slice(5)).join(' ')}: exit ${run.code} in ${((performance.now() - started) / 1000).toFixed(1)} s\n${run.out.join('\n')}\n${run.err.join('\n')}`);
  return run;
};
const verdicts = (out: readonly string[]): string[] => out.flatMap((line) => /trial \d+: (PASS|FAIL|INCONCLUSIVE) at pause point "([^"]+)"/.exec(line)?.slice(1, 3).reverse().join(' ') ?? []);

describe('lockstep pause-test (ADR-17)', () => {
  it('passes the PostgreSQL reference fence, and writes a result that class check accepts with its class', async () => {
    const out = join(dir, 'ledger-writes.pause-test.yaml');
    const run = await timed(...base(), '--postgres', (postgres as PostgresServer).url, '--table', TABLE, '--out', out);
    expect(run.code).toBe(0);
    expect(verdicts(run.out)).toEqual(['before PASS', 'after PASS']);
    expect(run.out.join('\n')).toMatch(/first holder's write ended \(it was told: refused \(0 rows updated\)/);
    const result = await readFile(out, 'utf8');
    expect(result).toMatch(/ranAt: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
    const check = await runCli('class', 'check', classFile, out);
    expect(check).toMatchObject({ code: 0, out: [expect.stringMatching(/^ok: 1 class, 1 pause-test result, 0 grants in 2 files/)] });
    // Without the result the class is not valid: the result is what made it pass.
    expect((await runCli('class', 'check', classFile)).code).toBe(1);
    // The pull request's TTL comment reads the class with its result (README, resource owners).
    const ttl = await runCli('ttl', classFile, out, '--sessions', '1000', '--format', 'md');
    expect([ttl.code, ttl.out.join('\n')]).toEqual([0, expect.stringContaining('### TTL review: payments/ledger-writes (ttlSeconds: 5)')]);
  }, KIT_TIMEOUT_MS);

  it('negative control: fails a resource with no fence, at the pause before the write, and writes no result', async () => {
    const out = join(dir, 'no-fence.yaml');
    const run = await timed(...base(), '--key', 'payments/no-fence', '--read-command', `sh ${FIXTURES}read-value.sh ${(postgres as PostgresServer).url} ${TABLE}`, '--out', out, '--', 'sh', `${FIXTURES}no-fence.sh`, (postgres as PostgresServer).url, TABLE);
    expect(run.code).toBe(1);
    expect(verdicts(run.out)).toEqual(['before FAIL', 'after PASS']);
    expect(run.out.join('\n')).toMatch(/FAIL: trial 1 at pause point "before": fail: the resource took the first holder's stale write after the second holder's/);
    await expect(readFile(out, 'utf8')).rejects.toThrow(/ENOENT/);
  }, KIT_TIMEOUT_MS);

  it('negative control: fails a check-then-write fence, only where the pause falls between its statements', async () => {
    const run = await timed(...base(), '--key', 'payments/check-then-write', '--json', '--read-command', `sh ${FIXTURES}read-value.sh ${(postgres as PostgresServer).url} ${TABLE}`, '--', 'sh', `${FIXTURES}check-then-write.sh`, (postgres as PostgresServer).url, TABLE);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.out.at(-1) ?? '{}') as { passed: boolean; trials: Array<{ point: string; verdict: string; finalState?: { value?: string } }> };
    expect(result.passed).toBe(false);
    expect(result.trials.map((t) => `${t.point} ${t.verdict}`)).toEqual(['before pass', 'after pass', 'between fail']);
    expect(result.trials[2]?.finalState?.value).toMatch(/\/trial-3\/first$/);
  }, KIT_TIMEOUT_MS);

  it('passes the file register, frozen between its check and its publication too', async () => {
    const run = await timed(...base(), '--key', 'payments/file-register', '--file', join(dir, 'register'));
    expect(run.code).toBe(0);
    expect(verdicts(run.out)).toEqual(['before PASS', 'after PASS', 'checked PASS']);
  }, KIT_TIMEOUT_MS);
});

describe('lockstep pause-test: bad input exits 2, touching nothing', () => {
  it.each([
    [['--postgres', 'postgresql://x/db'], /--postgres needs --table T/],
    [['--file', '/tmp/r', '--postgres', 'postgresql://x/db', '--table', 't'], /--postgres and --file given together; choose one of/],
    [[], /no guarded write given; choose one of --postgres URL --table T, --file DIR, or --read-command CMD -- <command...>/],
    [['--', 'true'], /a command after -- needs --read-command CMD/],
    [['--file', '/tmp/r', '--fence-mode', 'lenient'], /--fence-mode "lenient" is not one of above, at-or-above/],
    [['--file', '/tmp/r', '--key', 'billing/x'], /--key billing\/x is not in namespace payments, the class's/],
    [['--file', '/tmp/r', '--out', '/no/such/dir/r.yaml'], /--out \/no\/such\/dir\/r.yaml: the directory \/no\/such\/dir does not exist/],
  ])('%j', async (extra, message) => {
    const run = await runCli('pause-test', '--endpoints', '127.0.0.1:1', '--class', classFile, ...extra);
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toMatch(message);
  });

  it('has --help naming the fence modes and the write command protocol', async () => {
    const run = await runCli('pause-test', '--help');
    expect(run.code).toBe(0);
    expect(run.out.join('\n')).toMatch(/above: fence < \$token .*one write per grant/);
    expect(run.out.join('\n')).toMatch(/echo "pause-point between" >&3; read -r _ <&3/);
  });
});
