import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibrationFor } from './gate-calibration.js';

const profile = { kind: 'lockstep-hardware-profile', measuredAt: 'then', walFsync: { kind: 'empirical', samplesMs: [1, 2] }, loopbackRtt: { kind: 'empirical', samplesMs: [0.1, 0.2] } };

describe('the gate\'s simulator timing (issue 32)', () => {
  it('takes the default profile when it exists, a named one when given, and none when asked or not comparing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gate-calibration-'));
    const stored = join(dir, 'bench-profile.json');
    expect(await calibrationFor(true, undefined, stored)).toBeUndefined(); // no profile stored: the defaults
    await writeFile(stored, JSON.stringify(profile));
    expect((await calibrationFor(true, undefined, stored))?.source).toBe(`lockstep bench --profile of then (${stored}, the default)`);
    expect((await calibrationFor(true, stored, join(dir, 'absent.json')))?.linkLatency).toEqual({ kind: 'empirical', samplesMs: [0.05, 0.1] });
    expect(await calibrationFor(true, 'none', stored)).toBeUndefined();
    expect(await calibrationFor(false, undefined, stored)).toBeUndefined();
    await expect(calibrationFor(false, stored, stored)).rejects.toThrow(/goes with --compare-sim/);
    await writeFile(stored, '{"kind":"bench-report"}');
    await expect(calibrationFor(true, undefined, stored)).rejects.toThrow(/is not a hardware profile/);
  });
});
