import { describe, expect, it } from 'vitest';
import { countDelta, parseEtcdMessages, parseStraceSummary, threadCpuUs } from './wakeup-counts.js';

describe('wakeup counts (issue 30, serve CPU per cycle)', () => {
  it("sums etcd's received gRPC messages by method across codes and types", () => {
    const metrics = [
      '# TYPE grpc_server_msg_received_total counter',
      'grpc_server_msg_received_total{grpc_method="Txn",grpc_service="etcdserverpb.KV",grpc_type="unary"} 400',
      'grpc_server_msg_received_total{grpc_method="LeaseKeepAlive",grpc_service="etcdserverpb.Lease",grpc_type="bidi_stream"} 3',
      'grpc_server_handled_total{grpc_code="OK",grpc_method="Txn",grpc_service="etcdserverpb.KV",grpc_type="unary"} 999',
      'grpc_server_msg_received_total{grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"} 1.5e+06',
    ].join('\n');
    expect(Object.fromEntries(parseEtcdMessages(metrics))).toEqual({ Txn: 400, LeaseKeepAlive: 3, Range: 1_500_000 });
    expect(parseEtcdMessages('grpc_server_handled_total{grpc_method="Txn"} 5').size).toBe(0);
  });

  it('keeps only what moved', () => {
    const delta = countDelta(new Map([['Txn', 10], ['Range', 4]]), new Map([['Txn', 30], ['Range', 4], ['Put', 1]]));
    expect(Object.fromEntries(delta)).toEqual({ Txn: 20, Put: 1 });
  });

  it("reads strace -c's calls column, with and without an errors column, not its total", () => {
    const summary = [
      '% time     seconds  usecs/call     calls    errors syscall',
      '------ ----------- ----------- --------- --------- ----------------',
      ' 45.10    0.012000          10      1200           epoll_pwait',
      ' 20.00    0.005000           6       800       400 epoll_ctl',
      '  0.00    0.000000           0         3           write',
      '------ ----------- ----------- --------- --------- ----------------',
      '100.00    0.017000                  2003       400 total',
    ].join('\n');
    expect(Object.fromEntries(parseStraceSummary(summary))).toEqual({ epoll_pwait: 1200, epoll_ctl: 800, write: 3 });
    expect(parseStraceSummary('strace: Process 12 attached').size).toBe(0);
  });

  it("splits this process's CPU between its main thread and the rest", () => {
    if (process.platform !== 'linux') return;
    let spin = 0;
    for (let i = 0; i < 3_000_000; i++) spin += i % 7;
    const split = threadCpuUs(process.pid);
    expect(spin).toBeGreaterThan(0);
    expect(split.main).toBeGreaterThan(0);
    expect(split.helpers).toBeGreaterThanOrEqual(0);
  });
});
