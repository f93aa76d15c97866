// The drawn schedule (issue 15): the same seed gives the same schedule, another seed another; a 5-minute
// run has every kind the real cluster can inject; a short run has a holder's pause, a kill and a
// partition; and every drawn schedule passes the one validator against this gate's processes.
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS, checkFaultSchedule } from '../../scenarios/fault-schedule.js';
import { drawSchedule } from './gate-schedule.js';
import { REAL_CANNOT } from './real-fault-target.js';
import { arbiterNames, clientNames, memberNames } from './real-cluster.js';

const names = { members: memberNames(3), arbiters: arbiterNames(2), clients: clientNames(3) };
const processes = [...names.members.map((name) => ({ name, role: 'member' })), ...names.arbiters.map((name) => ({ name, role: 'arbiter' })), ...names.clients.map((name) => ({ name, role: 'client' }))];
const draw = (seed: string, durationMs: number) => drawSchedule(seed, { durationMs, ...names });

describe('the gate\'s drawn fault schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(draw('7', 300_000)).toEqual(draw('7', 300_000));
    expect(draw('7', 300_000)).not.toEqual(draw('8', 300_000));
  });

  it.each(['1', '2', '3', '4', '5'])('seed %s: a 5-minute run has every kind the real cluster can inject, and passes the validator', (seed) => {
    const faults = draw(seed, 300_000);
    const injectable = FAULT_KINDS.filter((kind) => REAL_CANNOT[kind] === undefined);
    expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(injectable));
    expect(checkFaultSchedule(faults, { processes, horizonMs: 300_000 })).toEqual(faults);
    // @holder pauses outlast the 5 s lease, so the log expires a paused holder's hold.
    const holderPauses = faults.filter((f) => f.kind === 'pause' && f.target === '@holder');
    expect(holderPauses.length).toBeGreaterThan(0);
    for (const pause of holderPauses) expect(pause.kind === 'pause' && (pause.forMs ?? 0) > 5_000).toBe(true);
  });

  it('a 50-second run (the test\'s) has a holder\'s pause, a member kill with its restart and a partition with its heal', () => {
    for (const seed of ['gate-test', '1']) {
      const kinds = draw(seed, 50_000).map((f) => f.kind);
      expect(kinds).toEqual(expect.arrayContaining(['pause', 'crash', 'restart', 'partition', 'heal']));
    }
  });

  it('every time is inside the run, and the last fault leaves a quiet tail', () => {
    const faults = draw('9', 120_000);
    for (const fault of faults) expect(fault.atMs).toBeGreaterThanOrEqual(0);
    const ends = faults.map((f) => f.atMs + (f.kind === 'pause' ? (f.forMs ?? 0) : 0));
    expect(Math.max(...ends)).toBeLessThanOrEqual(120_000 - 6_000);
  });

  it('--focus repeats one episode, with no drift, enough times for an interval, and passes the validator (issue 32)', () => {
    const faults = drawSchedule('1', { durationMs: 300_000, ...names, only: 'pause-leader' });
    expect(faults.every((f) => f.kind === 'pause' && f.target === '@leader')).toBe(true);
    expect(faults.length).toBeGreaterThanOrEqual(20);
    expect(checkFaultSchedule(faults, { processes, horizonMs: 300_000 })).toEqual(faults);
    const crashes = drawSchedule('1', { durationMs: 120_000, ...names, only: 'crash-arbiter' });
    expect(new Set(crashes.map((f) => f.kind))).toEqual(new Set(['crash', 'restart']));
    // No arbiter to crash: an empty schedule, not a loop without end.
    expect(drawSchedule('1', { durationMs: 120_000, ...names, arbiters: [], only: 'crash-arbiter' })).toEqual([]);
  });
});
