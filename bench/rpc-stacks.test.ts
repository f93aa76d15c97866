// The RPC-stack bench's stacks answer what they are measured answering: each stack, plaintext and mTLS,
// makes a few calls and every answer is the canned one (no timing asserted: speed is the bench's).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { clone } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquireResponseSchema } from '../src/gen/lockstep/lock/v1/lock_pb.js';
import { REPO_ROOT } from '../src/repo-root.js';
import { STACKS, openClient } from './rpc-stacks-clients.js';
import type { RpcStacksReport } from './rpc-stacks-report.js';
import { benchTls } from './rpc-stacks-run.js';
import { type StackServers, type TlsMaterial, startStackServers } from './rpc-stacks-servers.js';
import { CANNED_RESPONSE, RESPONSE_FRAME, isCannedAnswer } from './rpc-stacks-wire.js';

const CALLS = 3;
const run = promisify(execFile);

/** The bench as `npm run bench:rpc` runs it, from dist/js (built by the tests' global setup). */
function benchRpc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [join(REPO_ROOT, 'bin', 'run-compiled.mjs'), 'bench/rpc-stacks.ts', ...args], { cwd: REPO_ROOT, timeout: 150_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}
let dir: string;
let tls: TlsMaterial;
let servers: StackServers;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-rpc-stacks-test-'));
  tls = await benchTls(dir);
  servers = await startStackServers(tls);
}, 60_000);

afterAll(async () => {
  await servers?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('every stack of the RPC-stack bench', () => {
  for (const stack of STACKS) {
    for (const secure of [false, true]) {
      it(`${stack.label}, ${secure ? 'mTLS' : 'plaintext'}: answers the canned response`, async () => {
        const client = openClient(stack.client, servers.ports[`${stack.server}/${secure ? 'tls' : 'plain'}`], secure ? tls : undefined);
        try {
          // Concurrent calls on the one connection, as the bench's c=64 makes them.
          const answers = await Promise.all(Array.from({ length: CALLS }, () => client.call()));
          expect(answers.map(isCannedAnswer)).toEqual(Array(CALLS).fill(true));
        } finally {
          client.close();
        }
      });
    }
  }
});

describe('the canned-answer check', () => {
  it('refuses another grant, other bytes and a value of another type (negative controls)', () => {
    const other = clone(AcquireResponseSchema, CANNED_RESPONSE);
    if (other.grant !== undefined) other.grant.token = '1';
    const bytes = Buffer.from(RESPONSE_FRAME);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    expect([isCannedAnswer(CANNED_RESPONSE), isCannedAnswer(RESPONSE_FRAME)]).toEqual([true, true]);
    expect([isCannedAnswer(other), isCannedAnswer(bytes), isCannedAnswer(undefined), isCannedAnswer({})]).toEqual([false, false, false, false]);
  });
});

describe('npm run bench:rpc', () => {
  it('measures every stack, plaintext and mTLS, at c=1 and c=64, with both processes\' CPU, in one short run (each worker at most a call per --period)', async () => {
    const { code, stdout, stderr } = await benchRpc('--rounds', '1', '--slice', '200ms', '--warmup', '50ms', '--period', '20ms', '--json');
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/round 1\/1 done/);
    const report = JSON.parse(stdout) as RpcStacksReport;
    expect(report.rows.map((r) => `${r.stack} ${r.transport} ${r.concurrency}`).sort()).toEqual(
      STACKS.flatMap((s) => ['plaintext', 'mTLS'].flatMap((t) => [1, 64].map((c) => `${s.id} ${t} ${c}`))).sort(),
    );
    for (const row of report.rows) {
      expect(row.errors, `${row.label} ${row.transport} c=${row.concurrency}: ${row.firstError ?? ''}`).toBe(0);
      expect(row.callsPerS, `${row.label}: calls counted`).toBeGreaterThan(0);
      expect([row.serverCpuUs, row.clientCpuUs].every((us) => us !== null && us >= 0), `${row.label}: both processes' CPU read`).toBe(true);
    }
    expect([report.idleCpuMsPerS.server, report.idleCpuMsPerS.client].every((ms) => ms >= 0), 'the CPU without calls, read').toBe(true);
    // --period 20ms: one worker starts at most 50 calls a second (a little over for the slice's edges); without it thousands.
    expect(report.periodMs).toBe(20);
    for (const row of report.rows.filter((r) => r.concurrency === 1)) expect(row.callsPerS, `${row.label} ${row.transport}`).toBeLessThanOrEqual(60);
    // The floor is its own yardstick (n/a when a slice this short saw no call end inside its window).
    const floors = report.rows.filter((r) => r.stack === 'bare');
    expect(floors.map((r) => r.p50OverFloor)).toEqual(floors.map((r) => (r.p50Ms > 0 ? 1 : null)));
  }, 180_000);

  it('refuses a bad flag with exit 2, naming the flag and the fix', async () => {
    const rounds = await benchRpc('--rounds', '0');
    expect([rounds.code, rounds.stderr]).toEqual([2, expect.stringMatching(/--rounds "0" must be a whole number from 1 to 100/)]);
    const period = await benchRpc('--period', '1s');
    expect([period.code, period.stderr]).toEqual([2, expect.stringMatching(/--period 1s must be at most 100ms/)]);
    const unknown = await benchRpc('--bogus');
    expect(unknown.code).toBe(2);
    const help = await benchRpc('--help');
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('--slice <duration>')]);
  }, 60_000);
});
