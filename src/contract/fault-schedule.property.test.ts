// The fault schedule's contract, property-based (fast-check): every schedule a user could write, near
// misses included, is either refused as bad input (exit 2) naming the fault and field, or runs to a
// verdict (exit 0 or 1, an artifact) within its horizon; never a hang, a crash or an exit 13.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HORIZON_MS } from '../../scenarios/horizon.js';
import { runCli } from '../testing/run-cli.js';
import { type Fixtures, fixtures } from './contract-kit.js';

let scratch: Fixtures;
beforeAll(async () => {
  scratch = await fixtures();
});
afterAll(async () => scratch.cleanup());

// pause-test's processes, roles, and names that are neither.
const target = fc.constantFrom('alice', 'bob', 'arbiter-1', 'etcd-1', 'etcd-2', 'etcd-3', 'ledger-db', '@leader', '@follower', '@member-2', '@holder', 'zed', '@primary', '');
const ms = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 40_000 }) }, fc.constantFrom(-5, 1e9, 1.5, Number.MAX_VALUE));
const duration = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1, max: 60_000 }) }, fc.constantFrom(0, -1, 1e12));
const side = fc.array(target, { minLength: 0, maxLength: 3 });

/** A fault of each kind with plausible values (some out of range), the way a person edits a schedule. */
const plausibleFault = fc.oneof(
  fc.record({ atMs: ms, kind: fc.constant('pause'), target, forMs: duration }, { requiredKeys: ['atMs', 'kind', 'target'] }),
  fc.record({ atMs: ms, kind: fc.constantFrom('resume', 'restart'), target }),
  fc.record({ atMs: ms, kind: fc.constant('crash'), target, powerLoss: fc.boolean() }, { requiredKeys: ['atMs', 'kind', 'target'] }),
  fc.record({ atMs: ms, kind: fc.constant('partition'), id: fc.constantFrom('p1', 'p2', ''), from: side, to: side, oneWay: fc.boolean() }, { requiredKeys: ['atMs', 'kind', 'id', 'from', 'to'] }),
  fc.record({ atMs: ms, kind: fc.constant('heal'), id: fc.constantFrom('p1', 'p2', 'nothing') }),
  fc.record({ atMs: ms, kind: fc.constant('stall-disk'), target, durationMs: duration }),
  fc.record({ atMs: ms, kind: fc.constant('clock-drift'), target, ppm: fc.oneof(fc.integer({ min: -999_999, max: 1_000_000 }), fc.constantFrom(-1_000_000, 1e9)) }),
  fc.record({ atMs: ms, kind: fc.constant('clock-step'), target, deltaMs: fc.integer({ min: -400_000, max: 400_000 }) }),
  fc.record({ atMs: ms, kind: fc.constant('slow-link'), id: fc.constantFrom('s1', 'p1'), from: side, to: side, extraDelayMs: duration }),
  fc.record({ atMs: ms, kind: fc.constant('brownout'), target, extraDelayMs: duration, freezeAfterMs: duration, freezeForMs: duration, recoverMs: duration }),
  fc.record({ atMs: ms, kind: fc.constant('advance-epoch'), via: fc.constantFrom('arbiter-1', 'alice') }),
  fc.record({ atMs: ms, kind: fc.constant('restore'), snapshotAtMs: ms, clusterToken: fc.constantFrom('t2', ''), arbiters: fc.constantFrom('reconnect', 'restart', 'reboot') }, { requiredKeys: ['atMs', 'kind', 'snapshotAtMs', 'clusterToken'] }),
);

/** Now and then a slip: an unknown kind, a misspelt field, a field gone, a value of the wrong type. */
const fault = fc.oneof(
  { weight: 6, arbitrary: plausibleFault },
  plausibleFault.map((f) => ({ ...f, kind: 'explode' })),
  plausibleFault.map((f) => ({ ...f, atMS: 5 })),
  plausibleFault.map(({ atMs: _dropped, ...rest }) => rest),
  plausibleFault.map((f) => ({ ...f, atMs: String(f.atMs) })),
  fc.constantFrom(null, 7, 'pause', []),
);

const schedule = fc.oneof({ weight: 12, arbitrary: fc.array(fault, { maxLength: 5 }) }, fc.constantFrom({ faults: [] }, 'faults', null));

describe('a fault schedule given to lockstep run --faults', () => {
  it('is refused naming a field, or runs to a verdict within its horizon', { timeout: 600_000 }, async () => {
    let file = 0;
    const outcomes = { refused: 0, ran: 0 };
    await fc.assert(
      fc.asyncProperty(schedule, async (faults) => {
        file += 1;
        const path = await scratch.text(`schedule-${file}.json`, JSON.stringify(faults));
        const out = join(scratch.dir, `run-${file}.json`);
        const run = await runCli('run', 'pause-test', '--seed', '2', '--faults', path, '--out', out, '--json');
        if (run.code === 2) {
          outcomes.refused += 1;
          expect(run.err.join('\n')).toMatch(/^lockstep run: --faults .*: fault schedule: (\(schedule\)|faults\[\d+\](\.\w+(\[\d+\])?)?) (is|has) /m);
          return;
        }
        outcomes.ran += 1;
        expect([0, 1], run.err.join('\n')).toContain(run.code);
        const artifact = JSON.parse(await readFile(out, 'utf8')) as { simulatedMs: number; faults: unknown; checks: { name: string }[] };
        expect(artifact.faults).toEqual(faults);
        expect(artifact.checks.map((c) => c.name)).toContain('raft-safety');
        // Within the horizon, counted from the workload's start, after the cluster's own start (seconds).
        expect(artifact.simulatedMs).toBeLessThan(DEFAULT_HORIZON_MS + 10_000);
        await rm(out);
      }),
      { seed: 17, numRuns: 40 },
    );
    // Both halves of the property were exercised.
    expect(outcomes.refused).toBeGreaterThan(5);
    expect(outcomes.ran).toBeGreaterThan(5);
  });
});
