import { describe, expect, it } from 'vitest';
import { wakeupKinds } from './wakeup-trace.js';

const T = 100;
const sw = (at: number, prev: number, state: string, next: number) => `${prev} ${at.toFixed(6)}: sched:sched_switch: prev_comm=node prev_pid=${prev} prev_prio=120 prev_state=${state} ==> next_comm=x next_pid=${next} next_prio=120`;
const sys = (at: number, call: string, fd: number, count = 0x10000) => `${T} ${at.toFixed(6)}: syscalls:sys_enter_${call}: fd: 0x${fd.toString(16)}, buf: 0x1, count: 0x${count.toString(16)}`;

describe('main-thread CPU per wakeup from a perf trace', () => {
  it('adds on-CPU segments until the thread sleeps, and names a wakeup by its sockets', () => {
    const trace = [
      sw(1.0, 7, 'S', T), sys(1.0001, 'read', 21), sys(1.0002, 'writev', 18), sw(1.0003, T, 'R', 7), // request: preempted after 300 us
      sw(1.001, 7, 'S', T), sw(1.0012, T, 'S', 7), // ... 200 us more, then sleeps: 500 us
      sw(1.002, 7, 'S', T), sys(1.00201, 'read', 18), sys(1.00202, 'write', 18, 17), sw(1.00205, T, 'S', 7), // etcd's ping: 50 us
      sw(1.003, 7, 'S', T), sys(1.0031, 'read', 18), sys(1.0032, 'write', 21, 50), sw(1.004, T, 'S', 7), // etcd answer: 1000 us
      sw(1.005, 7, 'S', T), sw(1.0051, T, 'S', 7), // a timer: 100 us
      '55 1.006: syscalls:sys_enter_read: fd: 0x15, buf: 0x1, count: 0x1', // another thread: ignored
    ].join('\n');
    const { kinds, etcdCalls } = wakeupKinds(trace, T, { etcd: [18], clients: [21] });
    expect(etcdCalls).toBe(1);
    expect(kinds.map((k) => [k.kind, k.wakeups, Math.round(k.cpuUs)])).toEqual([
      ['etcd answer', 1, 1000],
      ['lock.v1 request', 1, 500],
      ['no socket read (timer, immediate)', 1, 100],
      ['etcd ping', 1, 50],
    ]);
  });

  it('a read of etcd that writes more than the ping acknowledgement is an answer', () => {
    const trace = [sw(2.0, 7, 'S', T), sys(2.0001, 'read', 18), sys(2.0002, 'write', 18, 17), sys(2.0003, 'writev', 18), sw(2.0004, T, 'S', 7)].join('\n');
    expect(wakeupKinds(trace, T, { etcd: [16, 18] }).kinds.map((k) => k.kind)).toEqual(['etcd answer']);
  });
});
