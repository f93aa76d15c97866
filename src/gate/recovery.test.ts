// Time from each injected fault to the next grant, per kind (issue 15): skipped faults do not count, the
// schedule's times are moved onto the history's clock, and a fault no grant followed says so.
import { describe, expect, it } from 'vitest';
import { recoveries } from './recovery.js';

describe('recoveries', () => {
  it('measures from each injected fault to the next grant, median and longest per kind', () => {
    const lines = [
      { atMs: 0, kind: 'crash', outcome: 'injected', what: '' },
      { atMs: 100, kind: 'crash', outcome: 'skipped', what: '' },
      { atMs: 1_000, kind: 'crash', outcome: 'injected', what: '' },
      { atMs: 2_000, kind: 'crash', outcome: 'injected', what: '' },
      { atMs: 5_000, kind: 'pause', outcome: 'injected', what: '' },
    ] as const;
    // The workload began at 500 on the history's clock.
    const grants = [400, 800, 2_000, 3_000];
    expect(recoveries(lines, 500, grants)).toEqual([
      { kind: 'crash', faults: 3, medianMs: 500, maxMs: 500 },
      { kind: 'pause', faults: 1, medianMs: undefined, maxMs: undefined },
    ]);
  });
});
