// `serve --dev` that fails to start removes what it made (issue 29): its directory holds a CA key. The
// failure here is a --listen port already taken, found after the etcd started and the certificates were
// made; TMPDIR is a directory of this test's own, so what is left in it is what --dev left.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLockstep } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-dev-fail-'));
let taken: Server | undefined;

afterAll(() => {
  taken?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('lockstep serve --dev', () => {
  it('removes its directory when it fails to start', { timeout: 120_000 }, async () => {
    taken = createServer();
    const port = await new Promise<number>((done) => taken?.listen(0, '127.0.0.1', () => done((taken?.address() as { port: number }).port)));
    const run = await runLockstep(['serve', '--dev', '--listen', `127.0.0.1:${port}`], { env: { ...process.env, TMPDIR: scratch } });
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toMatch(/making development certificates in .*lockstep-dev-/);
    expect(readdirSync(scratch).filter((name) => name.startsWith('lockstep-dev-'))).toEqual([]);
  });

  it('keeps a --dev-dir the user named', { timeout: 120_000 }, async () => {
    // The negative control: the check above can see a directory that is left.
    const port = (taken?.address() as { port: number }).port;
    const dir = join(scratch, 'mine');
    const run = await runLockstep(['serve', '--dev', '--dev-dir', dir, '--listen', `127.0.0.1:${port}`], { env: { ...process.env, TMPDIR: scratch } });
    expect(run.code).not.toBe(0);
    expect(readdirSync(join(dir, 'certs'))).toContain('ca.key');
  });
});
