// What a gate plans before anything starts (issue 15): the drawn schedule's clock faults become the
// clocks processes start under (libfaketime is set at a process's start), and --slow-holder puts client-1
// at x0.3 as a clock-drift fault of the schedule, so the report and faults.json say so.
import { describe, expect, it } from 'vitest';
import { type GateFlags, SLOW_HOLDER_PPM, planGate } from './gate-options.js';

const flags = (more: Partial<GateFlags> = {}): GateFlags => ({ members: '3', arbiters: '2', clients: '3', keys: '2', duration: '5m', seed: '1', resource: 'fenced', ...more });

describe('planGate', () => {
  it('every clock fault of the drawn schedule names a process that starts under that clock', async () => {
    const plan = await planGate(flags());
    const clockFaults = plan.faults.filter((f) => f.kind === 'clock-drift' || f.kind === 'clock-step');
    expect(clockFaults.length).toBeGreaterThan(1);
    for (const fault of clockFaults) {
      const clock = plan.clocks.get(fault.target);
      expect(clock?.kind).toBe(fault.kind === 'clock-drift' ? 'rate' : 'steps');
      if (fault.kind === 'clock-drift' && clock?.kind === 'rate') expect(clock.ppm).toBe(fault.ppm);
    }
    expect(plan.scheduleSource).toBe('drawn from seed 1');
  });

  it.each(['1', '2', '3', '4', '5', '6'])('--slow-holder (seed %s) starts client-1 at x0.3, recorded as a clock-drift fault at 0; the drawn drift takes another client', async (seed) => {
    const plan = await planGate(flags({ slowHolder: true, seed }));
    expect(plan.faults.filter((f) => f.kind === 'clock-drift' && f.target === 'client-1')).toHaveLength(1);
    expect(plan.clocks.get('client-1')).toEqual({ kind: 'rate', ppm: SLOW_HOLDER_PPM });
    expect(plan.faults[0]).toEqual({ atMs: 0, kind: 'clock-drift', target: 'client-1', ppm: SLOW_HOLDER_PPM });
    expect(plan.slowHolder).toBe(true);
  });
});
