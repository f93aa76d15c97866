// `lockstep admin` as operators run it (issue 29): real `serve --dev` (its etcd, its development CA and the
// example grants, where `operator` and `operator-2` are operators of payments/), a real `lock` holding a key,
// and two operators with their own certificates: status, inspect (never the token), a force-release that the
// requester cannot approve and a second operator does, and an epoch advance the same way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-root.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-admin-'));
const certs = join(scratch, 'dev', 'certs');
const KEY = 'payments/ledger/admin-test';
let serve: LockstepProcess;
let arbiter: string;

function admin(operator: string, ...args: string[]): ReturnType<typeof runLockstep> {
  return runLockstep(['admin', ...args, '--arbiter', arbiter, '--tls-cert', join(certs, `${operator}.crt`), '--tls-key', join(certs, `${operator}.key`), '--ca', join(certs, 'ca.crt')]);
}

beforeAll(async () => {
  const [port] = await freePorts(1);
  arbiter = `127.0.0.1:${port}`;
  serve = startLockstep(['serve', '--dev', '--dev-dir', join(scratch, 'dev'), '--listen', arbiter]);
  await serve.waitForStderr(/serving lock\.v1/, 120_000);
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  rmSync(scratch, { recursive: true, force: true });
});

describe('lockstep admin', () => {
  it('status shows each arbiter\'s epoch and seal', async () => {
    const run = await admin('operator', 'status', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'status', arbiters: [{ address: arbiter, epoch: 1, sealed: null }] });
    const human = await admin('operator', 'status');
    expect(human.stdout).toMatch(new RegExp(`arbiters:\\n  address=${arbiter} epoch=1 clusterId=\\d+ sealed=null`));
  });

  it('inspect, force-release by one operator, approve by a second; the requester cannot approve it', { timeout: 120_000 }, async () => {
    const holder = startLockstep(['lock', '--arbiter', arbiter, '--tls-cert', join(certs, 'ledger-writer.crt'), '--tls-key', join(certs, 'ledger-writer.key'), '--ca', join(certs, 'ca.crt'), '--class', join(REPO_ROOT, 'examples', 'classes', 'ledger-writes.yaml'), KEY, '--', 'sleep', '60']);
    await holder.waitForStderr(/locked payments\/ledger\/admin-test/);
    const inspect = await admin('operator', 'inspect', KEY, '--json');
    expect(inspect.code, inspect.stderr).toBe(0);
    const seen = JSON.parse(inspect.stdout) as { held: boolean; holder: Record<string, string>; enforcement: string };
    expect(seen).toMatchObject({ held: true, holder: { identity: 'spiffe://example.org/ns/payments/sa/ledger-writer', className: 'ledger-writes' } });
    expect(Object.keys(seen.holder)).not.toContain('token');
    expect(inspect.stdout).not.toMatch(/token/i);

    const request = await admin('operator', 'force-release', KEY, '--reason', 'stuck batch, ticket 42', '--acknowledge-unfenced', '--json');
    expect(request.code, request.stderr).toBe(0);
    const proposal = JSON.parse(request.stdout) as { requestId: string; requester: string };
    expect(proposal.requester).toBe('spiffe://example.org/ns/payments/sa/operator');
    const self = await admin('operator', 'approve', proposal.requestId, '--acknowledge-unfenced');
    expect(self.code).toBe(5);
    expect(self.stderr).toMatch(/approval-required: .*cannot approve it too/);
    const approved = await admin('operator-2', 'approve', proposal.requestId, '--acknowledge-unfenced', '--json');
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ kind: 'force-released', released: true, approver: 'spiffe://example.org/ns/payments/sa/operator-2' });
    // The hold is gone from the log (the holder's session lives on: a fenced class's resource refuses its token).
    expect(JSON.parse((await admin('operator', 'inspect', KEY, '--json')).stdout)).toMatchObject({ held: false });
    holder.child.kill('SIGTERM');
    await holder.exited;
  });

  it('advance-epoch by one operator, approved by a second', async () => {
    const request = await admin('operator', 'advance-epoch', '--reason', 'restored from backup, drill', '--json');
    expect(request.code, request.stderr).toBe(0);
    const { requestId } = JSON.parse(request.stdout) as { requestId: string };
    expect(requestId).toMatch(/-epoch-advance-\d+$/);
    const approved = await admin('operator-2', 'approve', requestId, '--json');
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ kind: 'epoch-advanced', epoch: 2 });
    expect(JSON.parse((await admin('operator', 'status', '--json')).stdout)).toMatchObject({ arbiters: [{ epoch: 2 }] });
  });

  it('refuses a caller that is not an operator, and a reason left empty', async () => {
    const writer = await admin('ledger-writer', 'advance-epoch', '--reason', 'not mine to do');
    expect(writer.code).toBe(5);
    expect(writer.stderr).toMatch(/denied/);
    const empty = await admin('operator', 'force-release', KEY, '--reason', ' ');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--reason must say why/);
  });
});
