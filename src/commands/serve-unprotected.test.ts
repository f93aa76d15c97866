// `lockstep serve`'s fail-open flags refused as bad input (exit 2) before anything listens or dials etcd.
// Failing open itself runs on a real 3-member etcd in serve-unprotected.etcd.test.ts.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-root.js';
import { runCli } from '../testing/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-serve-unprotected-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'classes'));
mkdirSync(join(dir, 'grants'));
copyFileSync(join(REPO_ROOT, 'examples', 'classes', 'cache-warmer.yaml'), join(dir, 'classes', 'cache-warmer.yaml'));
const serve = (...flags: string[]) => runCli('serve', '--endpoints', '127.0.0.1:1', '--classes', join(dir, 'classes'), '--grants', join(dir, 'grants'), ...flags);

describe('lockstep serve --audit-db, --spool, --arbiter-id', () => {
  it('refuses a spool or an arbiter id without an audit database to ship to', async () => {
    const run = await serve('--spool', join(dir, 'spool.log'));
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('lockstep serve: --spool and --arbiter-id go with --audit-db');
  });

  it('refuses an arbiter id that would not fit in a spool record id', async () => {
    const run = await serve('--audit-db', join(dir, 'audit.duckdb'), '--arbiter-id', 'a/b');
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('--arbiter-id "a/b" must be 1 to 63 letters');
  });

  it('refuses an audit database that is not one, leaving it as it was', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'not a database\n');
    const run = await serve('--audit-db', notes);
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('--audit-db: ');
    expect(run.err.join('\n')).toContain('is not a DuckDB database file; it was left untouched');
  });
});
