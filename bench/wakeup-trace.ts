// `perf script -F tid,time,event,trace | npx tsx bench/wakeup-trace.ts --tid T --etcd-fd N,M [--client-fd N,M] [--cycles N]`:
// a process's main-thread CPU per event-loop wakeup, exactly (issue 30, docs/performance.md "Serve's CPU per
// cycle, per wakeup"). Input: `perf record -a -e sched:sched_switch -e syscalls:sys_enter_read -e
// syscalls:sys_enter_write -e syscalls:sys_enter_writev` around a run. A wakeup runs from the thread's
// switch-in after sleeping to its next switch-out into sleep; its CPU is its on-CPU time (preemptions left
// out). It is named by the sockets it read and wrote: a lock.v1 request (a read of the callers' socket), an
// etcd answer (a read of etcd's socket and an answer or the next call written), an etcd ping (etcd's
// HTTP/2 PING acknowledged: a 17-byte write and nothing else), or no socket read (a timer, an immediate).
// Cycles default to the etcd calls seen over two.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface WakeupKind {
  readonly kind: string;
  readonly wakeups: number;
  readonly cpuUs: number;
}

interface Wakeup {
  reads: Set<string>;
  writes: Set<string>;
  cpuUs: number;
  onSince: number | undefined;
}

/** An HTTP/2 PING frame with ACK: 9 bytes of frame header and 8 of data. */
const PING_ACK_BYTES = 17;

function nameOf(w: Wakeup): string {
  const parts: string[] = [];
  if (w.reads.has('client')) parts.push('lock.v1 request');
  if (w.reads.has('etcd')) {
    const onlyPing = w.writes.size === 1 && w.writes.has('etcd-ping');
    parts.push(onlyPing ? 'etcd ping' : 'etcd answer');
  }
  return parts.length > 0 ? parts.join(' + ') : 'no socket read (timer, immediate)';
}

/** Wakeups by kind, most CPU first, and the etcd calls sent (a writev to etcd: two a cycle on both paths). */
export function wakeupKinds(perfScript: string, tid: number, fds: { etcd: readonly number[]; clients?: readonly number[] }): { kinds: WakeupKind[]; etcdCalls: number } {
  let etcdCalls = 0;
  const kinds = new Map<string, { wakeups: number; cpuUs: number }>();
  let current: Wakeup | undefined;
  const socketOf = (fd: number): string | undefined => (fds.etcd.includes(fd) ? 'etcd' : fds.clients?.includes(fd) === true ? 'client' : undefined);
  for (const line of perfScript.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+\.\d+):\s+(\S+):\s+(.*)$/.exec(line);
    if (match === null) continue;
    const [, lineTid, time, event, trace = ''] = match;
    const atUs = Number(time) * 1e6;
    if (event === 'sched:sched_switch') {
      const next = /next_pid=(\d+)/.exec(trace)?.[1];
      const prev = /prev_pid=(\d+) .*prev_state=(\S+)/.exec(trace);
      if (Number(next) === tid) {
        current ??= { reads: new Set(), writes: new Set(), cpuUs: 0, onSince: undefined };
        current.onSince = atUs;
      } else if (Number(prev?.[1]) === tid && current?.onSince !== undefined) {
        current.cpuUs += atUs - current.onSince;
        current.onSince = undefined;
        if (prev?.[2] !== 'R' && prev?.[2] !== 'R+') {
          const kind = kinds.get(nameOf(current)) ?? { wakeups: 0, cpuUs: 0 };
          kind.wakeups++;
          kind.cpuUs += current.cpuUs;
          kinds.set(nameOf(current), kind);
          current = undefined;
        }
      }
      continue;
    }
    if (Number(lineTid) !== tid || current === undefined) continue;
    const fd = Number.parseInt(/fd: (0x[0-9a-f]+)/.exec(trace)?.[1] ?? '-1', 16);
    const socket = socketOf(fd);
    if (socket === undefined) continue;
    if (event === 'syscalls:sys_enter_writev' && socket === 'etcd') etcdCalls++;
    if (event === 'syscalls:sys_enter_read') current.reads.add(socket);
    else {
      const count = Number.parseInt(/count: (0x[0-9a-f]+)/.exec(trace)?.[1] ?? '0', 16);
      current.writes.add(socket === 'etcd' && count === PING_ACK_BYTES ? 'etcd-ping' : socket);
    }
  }
  return { kinds: [...kinds].map(([kind, k]) => ({ kind, wakeups: k.wakeups, cpuUs: k.cpuUs })).sort((a, b) => b.cpuUs - a.cpuUs), etcdCalls };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { tid: { type: 'string' }, 'etcd-fd': { type: 'string' }, 'client-fd': { type: 'string' }, cycles: { type: 'string' } } });
  if (values.tid === undefined || values['etcd-fd'] === undefined) throw new Error('usage: perf script -F tid,time,event,trace | wakeup-trace.ts --tid T --etcd-fd N,M [--client-fd N,M] [--cycles N]');
  const { kinds, etcdCalls } = wakeupKinds(readFileSync(0, 'utf8'), Number(values.tid), { etcd: values['etcd-fd'].split(',').map(Number), ...(values['client-fd'] === undefined ? {} : { clients: values['client-fd'].split(',').map(Number) }) });
  const cycles = Number(values.cycles ?? etcdCalls / 2);
  const all = { kind: 'total', wakeups: kinds.reduce((s, k) => s + k.wakeups, 0), cpuUs: kinds.reduce((s, k) => s + k.cpuUs, 0) };
  process.stdout.write(`${'wakeup kind'.padEnd(36)} ${'wakeups'.padStart(8)} ${'us each'.padStart(8)}${cycles > 0 ? '  per cycle  us/cycle' : ''}\n`);
  for (const k of [...kinds, all]) {
    const perCycle = cycles > 0 ? `${(k.wakeups / cycles).toFixed(2).padStart(11)} ${(k.cpuUs / cycles).toFixed(0).padStart(9)}` : '';
    process.stdout.write(`${k.kind.padEnd(36)} ${String(k.wakeups).padStart(8)} ${(k.cpuUs / Math.max(1, k.wakeups)).toFixed(0).padStart(8)}${perCycle}\n`);
  }
}
