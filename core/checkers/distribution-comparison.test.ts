import { describe, expect, it } from 'vitest';
import type { FaultEffect, FaultEffects } from './fault-effects.js';
import { summariseEffects } from './fault-effects.js';
import { compareDistributions, intervalsAgree } from './distribution-comparison.js';

function effects(group: string, nextGrants: readonly number[]): FaultEffects {
  const perFault = nextGrants.map((ms, i): FaultEffect => ({
    fault: { atMs: i * 1000, kind: group },
    group,
    atMs: i * 1000,
    nextGrantMs: ms,
    victimHold: undefined,
    victimKeyGrantMs: undefined,
    fenceMs: undefined,
    grants: 3,
    refusals: 0,
    writesAccepted: 5,
    writesRefused: 0,
  }));
  return { perFault, perKind: summariseEffects(perFault) };
}

const row = (rows: ReturnType<typeof compareDistributions>, figure: string) => rows.find((r) => r.figure === figure);

describe('compareDistributions: medians with intervals (issue 32)', () => {
  it('agrees when the intervals overlap within the tolerance, and differs when they do not', () => {
    const real = effects('pause @leader', [200, 210, 190, 220, 205, 215, 198, 202]);
    const close = compareDistributions(real, effects('pause @leader', [240, 250, 230, 260, 245, 255, 238, 242]));
    expect(row(close, 'nextGrant')).toMatchObject({ verdict: 'agrees', within: true, measuredDraws: 8, predictedDraws: 8 });
    // The negative control: 15x slower, as the arbiter crash once was.
    const far = compareDistributions(real, effects('pause @leader', [3000, 3100, 2900, 3200, 3050, 3150, 2980, 3020]));
    expect(row(far, 'nextGrant')).toMatchObject({ verdict: 'differs', within: false });
    expect(row(far, 'nextGrant')?.measuredInterval).toMatchObject({ low: 190, high: 220 });
  });

  it('says "too few draws" rather than compare a median of a few, and "one side only" when a side has none', () => {
    const rows = compareDistributions(effects('crash arbiter', [211, 402]), effects('crash arbiter', [3489, 5933]));
    expect(row(rows, 'nextGrant')).toMatchObject({ verdict: 'too few draws', within: false, reason: 'too few draws for a 95% interval (measured 2, predicted 2)' });
    const fenced = effects('crash arbiter', [3489, 5933]);
    const withFence = { ...fenced, perFault: fenced.perFault.map((e) => ({ ...e, fenceMs: 3000 })) };
    expect(row(compareDistributions(effects('crash arbiter', [211, 402]), withFence), 'fence')).toMatchObject({ verdict: 'one side only' });
  });

  it('has no row for a figure neither world shows (no fence on either side)', () => {
    const rows = compareDistributions(effects('crash arbiter', [211, 402]), effects('crash arbiter', [3489, 5933]));
    expect(row(rows, 'fence')).toBeUndefined();
    expect(row(rows, 'victimKeyGrant')).toBeUndefined();
  });

  it('widens the measured interval by the tolerance on both sides', () => {
    expect(intervalsAgree({ low: 100, high: 100 }, { low: 124, high: 130 })).toBe(true);
    expect(intervalsAgree({ low: 100, high: 100 }, { low: 126, high: 130 })).toBe(false);
    expect(intervalsAgree({ low: 100, high: 100 }, { low: 60, high: 75 })).toBe(true);
    expect(intervalsAgree({ low: 100, high: 100 }, { low: 60, high: 74 })).toBe(false);
    expect(intervalsAgree({ low: 0, high: 0 }, { low: 0, high: 0 })).toBe(true);
  });
});
