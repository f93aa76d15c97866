// `lockstep gate`'s bad input (issue 15), refused before anything starts: exit 2, the message names the
// flag or the schedule's field. Nothing is started and nothing written: the refusal comes before the
// cluster starts, and --out is not created.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-gate-input-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function faultsFile(name: string, faults: unknown): string {
  const file = join(scratch, name);
  writeFileSync(file, JSON.stringify(faults));
  return file;
}

async function refused(...args: string[]): Promise<string> {
  const out = join(scratch, 'out');
  const run = await runCli('gate', '--out', out, ...args);
  expect(run.code, run.err.join('\n')).toBe(2);
  expect(run.err.join('\n')).not.toMatch(/starting/); // refused before the cluster starts
  expect(existsSync(out)).toBe(false);
  return run.err.join('\n');
}

describe('lockstep gate: bad input is refused before anything starts', () => {
  it('an unknown fault kind names faults[i].kind and lists the kinds', async () => {
    const err = await refused('--faults', faultsFile('kind.json', [{ atMs: 1000, kind: 'pause', target: '@leader', forMs: 2000 }, { atMs: 2000, kind: 'meteor', target: 'etcd-0' }]));
    expect(err).toMatch(/faults\[1\]\.kind is "meteor"; allowed: pause, resume/);
  });

  it('a target that does not exist names the field and the processes this gate has', async () => {
    const err = await refused('--faults', faultsFile('target.json', [{ atMs: 1000, kind: 'crash', target: 'etcd-7' }]));
    expect(err).toMatch(/faults\[0\]\.target is "etcd-7", not a process of this gate/);
    expect(err).toMatch(/etcd-0, etcd-1, etcd-2, arbiter-1, arbiter-2/);
  });

  it('a negative time names the field and the rule', async () => {
    const err = await refused('--faults', faultsFile('negative.json', [{ atMs: -5, kind: 'pause', target: '@holder', forMs: 1000 }]));
    expect(err).toMatch(/faults\[0\]\.atMs is -5; it must be a number of ms from the start of the workload/);
  });

  it('a time past the run names the run\'s duration as the horizon', async () => {
    const err = await refused('--duration', '20s', '--faults', faultsFile('late.json', [{ atMs: 30_000, kind: 'pause', target: '@holder', forMs: 1000 }]));
    expect(err).toMatch(/faults\[0\]\.atMs is 30000; .*horizon \(20000\)/);
  });

  it('a kind the real cluster cannot inject is refused with the reason', async () => {
    const err = await refused('--faults', faultsFile('disk.json', [{ atMs: 1000, kind: 'stall-disk', target: 'etcd-0', durationMs: 1000 }]));
    expect(err).toMatch(/faults\[0\]\.kind is "stall-disk", which the gate cannot inject on real processes: no device-mapper/);
  });

  it('a clock fault on a role or an etcd member is refused (libfaketime is set at a process\'s start)', async () => {
    expect(await refused('--faults', faultsFile('drift.json', [{ atMs: 0, kind: 'clock-drift', target: '@holder', ppm: 1000 }]))).toMatch(/faults\[0\]\.target "@holder": a clock fault names an arbiter or a client/);
    expect(await refused('--faults', faultsFile('drift-late.json', [{ atMs: 500, kind: 'clock-drift', target: 'client-1', ppm: 1000 }]))).toMatch(/faults\[0\]\.atMs is 500: .*give atMs 0/);
  });

  it('bad --members, --arbiters, --duration and --resource each name the flag', async () => {
    expect(await refused('--members', '4')).toMatch(/--members "4" must be 3 or 5/);
    expect(await refused('--arbiters', '0')).toMatch(/--arbiters "0" must be a whole number from 1 to 5/);
    expect(await refused('--duration', 'soon')).toMatch(/--duration "soon" is not a duration/);
    expect(await refused('--resource', 'maybe')).toMatch(/--resource "maybe" must be fenced .* or unfenced/);
    expect(await refused('--etcd-binary', join(scratch, 'no-such-etcd'))).toMatch(/--etcd-binary .* is not an executable file/);
    expect(await refused('--compare-sim', '--compare-runs', '99')).toMatch(/--compare-runs "99" must be a whole number from 1 to 50/);
    expect(await refused('--compare-runs', '3')).toMatch(/--compare-runs goes with --compare-sim/);
    expect(await refused('--compare-sim', '--bench-profile', faultsFile('not-a-profile.json', { kind: 'bench-report' }))).toMatch(/--bench-profile .* is not a hardware profile/);
    const missing = join(scratch, 'no-such-profile.json');
    expect(await refused('--compare-sim', '--bench-profile', missing)).toContain(`--bench-profile ${missing}:`);
    expect(await refused('--bench-profile', missing)).toMatch(/--bench-profile goes with --compare-sim/);
  });

  it('with --json, bad input is one JSON object too', async () => {
    const run = await runCli('gate', '--json', '--members', '7');
    expect(run.code).toBe(2);
    expect(JSON.parse(run.out.join('\n'))).toMatchObject({ ok: false, verdict: 'bad-input', error: expect.stringMatching(/--members "7"/) });
  });
});
