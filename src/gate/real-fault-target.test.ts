// The real cluster's FaultTarget without real processes (issue 15): roles resolve from the tracked
// processes and the last known leader, a client's pause and resume are its outage on the history's clock,
// clock faults need the process to have started under that clock (rejected, not thrown), and what cannot be
// injected says why. The real processes behind it are exercised by src/commands/gate.etcd.test.ts.
import { describe, expect, it } from 'vitest';
import type { GateProcess, RealCluster } from './real-cluster.js';
import { RealFaultTarget } from './real-fault-target.js';

function fakeCluster(leader: string | undefined) {
  const processes = new Map<string, GateProcess>();
  const add = (name: string, role: GateProcess['role'], extra: Partial<GateProcess> = {}): void => void processes.set(name, { name, role, state: 'running', pid: 1, pids: [1], ...extra });
  add('etcd-0', 'member');
  add('etcd-1', 'member');
  add('etcd-2', 'member');
  add('arbiter-1', 'arbiter');
  add('client-1', 'client', { ratePpm: -700_000 });
  add('client-2', 'client');
  const signals: string[] = [];
  const real = {
    processes,
    names: (role: string) => [...processes.values()].filter((p) => p.role === role).map((p) => p.name),
    leader: async () => leader,
    signal: (name: string, signal: string) => {
      signals.push(`${signal} ${name}`);
      (processes.get(name) as GateProcess).state = signal === 'SIGSTOP' ? 'paused' : 'running';
    },
  } as unknown as RealCluster;
  return { real, processes, signals };
}

describe('RealFaultTarget', () => {
  it('resolves roles from the tracked processes and the last known leader', async () => {
    const { real } = fakeCluster('etcd-1');
    const holding = new Set(['client-2']);
    const target = new RealFaultTarget(real, () => 0, (c) => holding.has(c), () => 0);
    await target.refreshLeader();
    expect(['@leader', '@follower', '@member-3', '@holder', 'arbiter-1', 'nobody'].map((t) => target.resolve(t))).toEqual(['etcd-1', 'etcd-0', 'etcd-2', 'client-2', 'arbiter-1', 'nobody']);
    holding.clear();
    expect(target.resolve('@holder')).toBe('');
  });

  it('a client\'s pause and resume are its outage, on the history\'s clock', () => {
    const { real, signals } = fakeCluster('etcd-0');
    let historyMs = 1_000;
    const target = new RealFaultTarget(real, () => 0, () => true, () => historyMs);
    target.pause('client-2');
    expect(target.stateOf('client-2')).toBe('paused');
    historyMs = 9_000;
    target.resume('client-2');
    target.pause('etcd-0'); // a member's pause is no holder's outage
    expect(signals).toEqual(['SIGSTOP client-2', 'SIGCONT client-2', 'SIGSTOP etcd-0']);
    expect(target.outages).toEqual([{ holder: 'client-2', kind: 'pause', fromMs: 1_000, toMs: 9_000 }]);
  });

  it('clock faults need the process to have started under that clock, and fail as rejections', async () => {
    const { real } = fakeCluster('etcd-0');
    const target = new RealFaultTarget(real, () => 0, () => true, () => 0);
    await expect(target.driftClock('client-1', -700_000)).resolves.toBeUndefined();
    await expect(target.driftClock('client-2', 50_000)).rejects.toThrow(/did not start under a drift of 50000 ppm/);
    await expect(target.stepClock('arbiter-1', 5_000, 'wall')).rejects.toThrow(/steppable clock/);
    await expect(target.stepClock('arbiter-1', 5_000, 'monotonic')).rejects.toThrow(/monotonic clock cannot be stepped/);
    expect(target.cannot('stall-disk')).toMatch(/no device-mapper/);
    expect(target.cannot('pause')).toBeUndefined();
  });
});
