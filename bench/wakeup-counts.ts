// Counts per cycle for issue 30's serve-CPU accounting (docs/performance.md, "Serve's CPU per cycle, per
// wakeup"): etcd's messages by method (its /metrics), a process's CPU split between its main thread and
// node's helper threads (/proc/<pid>/task), and its syscalls (`strace -c -f`, whose epoll waits are the
// event loop's wakeups). Bench-only: nothing here runs in serve.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { reapOnExit } from '../src/testing/process-reaper.js';
import { statCpuUs } from './cpu-meter.js';

/** A metrics page bigger than this is not etcd's. */
const MAX_METRICS_BYTES = 4 * 1024 * 1024;

/** gRPC messages etcd received, by method (`Txn`, `Range`, `LeaseKeepAlive` ...): a unary call is one. */
export function parseEtcdMessages(metrics: string): Map<string, number> {
  const byMethod = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    const match = /^grpc_server_msg_received_total\{[^}]*grpc_method="([A-Za-z]+)"[^}]*\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/.exec(line);
    if (match === null) continue;
    const [, method = '', count = '0'] = match;
    byMethod.set(method, (byMethod.get(method) ?? 0) + Number(count));
  }
  return byMethod;
}

export async function etcdMessages(endpoint: string): Promise<Map<string, number>> {
  const response = await fetch(`${endpoint.replace(/\/$/, '')}/metrics`);
  const text = await response.text();
  if (text.length > MAX_METRICS_BYTES) throw new Error(`${endpoint}/metrics is ${text.length} bytes: not etcd's metrics page`);
  return parseEtcdMessages(text);
}

/** after - before, per key, leaving out keys that did not move. */
export function countDelta(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [key, count] of after) {
    const moved = count - (before.get(key) ?? 0);
    if (moved !== 0) delta.set(key, moved);
  }
  return delta;
}

/** A process's CPU so far: its main thread (tid = pid: the event loop) and node's other threads (V8's compiler and GC workers, libuv's pool). */
export function threadCpuUs(pid: number): { main: number; helpers: number } {
  const split = { main: 0, helpers: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const us = statCpuUs(`/proc/${pid}/task/${tid}/stat`) ?? 0; // 0: a thread that ended between the listing and the read
    if (Number(tid) === pid) split.main += us;
    else split.helpers += us;
  }
  return split;
}

/** `strace -c`'s summary table: calls per syscall (the "calls" column). */
export function parseStraceSummary(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of text.split('\n')) {
    // % time, seconds, usecs/call, calls, [errors,] syscall
    const match = /^\s*\d+\.\d+\s+\d+\.\d+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)\s*$/.exec(line);
    if (match === null || match[2] === 'total') continue;
    calls.set(match[2] as string, Number(match[1]));
  }
  return calls;
}

export interface StraceCount {
  /** Detaches and gives calls per syscall over the time attached. */
  stop(): Promise<Map<string, number>>;
}

/** Counts `pid`'s syscalls (every thread) until stop(); strace's summary goes to its stderr. */
export async function attachStrace(pid: number): Promise<StraceCount> {
  const child: ChildProcess = spawn('strace', ['-c', '-f', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  reapOnExit(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_METRICS_BYTES) stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // strace says "Process N attached" once it has the process's threads.
  await new Promise<void>((resolve, reject) => {
    const onData = (): void => {
      if (!stderr.includes('attached')) return;
      child.stderr?.off('data', onData);
      resolve();
    };
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`strace could not attach to ${pid}: ${stderr.slice(0, 300)}`)));
  });
  return {
    async stop() {
      child.kill('SIGINT');
      await exited;
      return parseStraceSummary(stderr);
    },
  };
}
