// `lockstep lock` refuses bad input before it touches etcd: the endpoint below is never dialled
// (port 9 is discard), so any attempt to reach it would show up as a hang or an `unavailable` exit 5.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

const base = ['lock', '--endpoints', '127.0.0.1:9', '--identity', 'svc-a'];

describe('lockstep lock: bad input exits 2 and names the problem', () => {
  it.each([
    [['--class', 'examples/classes/ledger-writes.yaml', 'payments/a//b', '--', 'true'], /empty segment/],
    [['--class', 'examples/classes/ledger-writes.yaml', 'Payments/x', '--', 'true'], /DNS label/],
    [['--class', 'no/such/file.yaml', 'payments/x', '--', 'true'], /no\/such\/file\.yaml: cannot read the file/],
    [['--class', 'examples/classes/ledger-writes.yaml', 'search/x', '--', 'true'], /no LockClass in namespace search/],
    [['--class', 'examples/classes/ledger-writes.yaml', '--class-name', 'nope', 'payments/x', '--', 'true'], /no LockClass payments\/nope/],
    [['--class', 'examples/classes/ledger-writes.yaml', '--wait', 'soon', 'payments/x', '--', 'true'], /--wait "soon" is not a duration/],
    [['--class', 'examples/classes/invalid/fenced-without-pause-test.yaml', 'payments/x', '--', 'true'], /problem/],
  ])('%j', async (args, message) => {
    const { code, out, err } = await runCli(...base, ...args);
    expect(code).toBe(2);
    expect([...out, ...err].join('\n')).toMatch(message);
  });

  it('refuses a fenced class whose pause test has expired, as of --now', async () => {
    const { code, out, err } = await runCli(...base, '--class', 'examples/classes/ledger-writes.yaml', '--now', '2028-01-01', 'payments/x', '--', 'true');
    expect(code).toBe(2);
    expect([...out, ...err].join('\n')).toMatch(/pause/i);
  });
});

describe('the lockstep bin', () => {
  it('prints help for every command and exits 0', () => {
    for (const args of [['--help'], ['lock', '--help'], ['class', 'check', '--help'], ['demo', '--help']]) {
      const result = spawnSync(process.execPath, ['bin/lockstep.mjs', ...args], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: lockstep/);
    }
  });
});
