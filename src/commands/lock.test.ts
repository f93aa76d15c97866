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
    [['--class', 'examples/classes/ledger-writes.yaml', '--kill-after', '1s', 'payments/x', '--', 'true'], /--kill-after 1s must be under 1000 ms, the ADR-12 margin/],
  ])('%j', async (args, message) => {
    const { code, out, err } = await runCli(...base, ...args);
    expect(code).toBe(2);
    expect([...out, ...err].join('\n')).toMatch(message);
  });

  it.each([
    ['nonsense', /--endpoints "nonsense": "nonsense" is not host:port \(no port\)/],
    ['127.0.0.1:99999', /--endpoints "127.0.0.1:99999": .*port 99999 is not from 1 to 65535/],
  ])('names --endpoints %j when it is not host:port, before dialling anything', async (endpoints, message) => {
    const { code, err } = await runCli('lock', '--endpoints', endpoints, '--identity', 'svc-a', '--class', 'examples/classes/ledger-writes.yaml', 'search/x', '--', 'true');
    expect(code).toBe(2);
    const endpointProblems = err.filter((line) => line.includes('--endpoints'));
    expect(endpointProblems.join('\n')).toMatch(message);
  });

  it('accepts a trailing comma in --endpoints (refused here for its key\'s namespace, not its endpoints)', async () => {
    const { code, err } = await runCli('lock', '--endpoints', '127.0.0.1:9,', '--identity', 'svc-a', '--class', 'examples/classes/ledger-writes.yaml', 'search/x', '--', 'true');
    expect(code).toBe(2);
    expect(err.filter((line) => line.includes('--endpoints'))).toEqual([]);
    expect(err.join('\n')).toMatch(/no LockClass in namespace search/);
  });

  it('names the missing --class instead of printing an empty file list', async () => {
    const { code, err } = await runCli(...base, 'payments/x', '--', 'true');
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/--class is required/);
    expect(err.join('\n')).not.toMatch(/lock: {2}hold no/);
  });

  it('refuses an --instance label beyond its bound, naming the flag and the rule (issue 29)', async () => {
    const { code, err } = await runCli(...base, '--class', 'examples/classes/ledger-writes.yaml', '--instance', 'x'.repeat(129), 'payments/x', '--', 'true');
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/--instance: instance "x+" must be 0\.\.128 printable characters/);
  });

  it('names the class files that hold no class for the key\'s namespace', async () => {
    const { err } = await runCli(...base, '--class', 'examples/classes/ledger-writes.yaml', '--class', 'examples/classes/statement-export.yaml', 'search/x', '--', 'true');
    expect(err.join('\n')).toMatch(/examples\/classes\/ledger-writes\.yaml, examples\/classes\/statement-export\.yaml hold no LockClass in namespace search/);
  });

  it('refuses a fenced class whose pause test has expired, as of --now', async () => {
    const { code, out, err } = await runCli(...base, '--class', 'examples/classes/ledger-writes.yaml', '--now', '2028-01-01', 'payments/x', '--', 'true');
    expect(code).toBe(2);
    expect([...out, ...err].join('\n')).toMatch(/pause/i);
  });
});

describe('the lockstep bin', () => {
  it('prints help for every command and exits 0', () => {
    for (const args of [['--help'], ['lock', '--help'], ['init', '--help'], ['class', 'check', '--help'], ['demo', '--help']]) {
      const result = spawnSync(process.execPath, ['bin/lockstep.mjs', ...args], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: lockstep/);
    }
  });
});
