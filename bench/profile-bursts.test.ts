import { describe, expect, it } from 'vitest';
import type { CpuProfile } from './cpu-profile-summary.js';
import { profileBursts } from './profile-bursts.js';

/** root -> idle | program | onSessionHeaders -> ServerHttp2Stream | runMicrotasks -> tryPush (grpc-js) | processImmediate -> finishSendTrailers */
const nodes: CpuProfile['nodes'] = [
  { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: 0 }, children: [2, 3, 4, 6, 8] },
  { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: 0 } },
  { id: 3, callFrame: { functionName: '(program)', url: '', lineNumber: 0 } },
  { id: 4, callFrame: { functionName: 'onSessionHeaders', url: 'node:internal/http2/core', lineNumber: 0 }, children: [5] },
  { id: 5, callFrame: { functionName: 'ServerHttp2Stream', url: 'node:internal/http2/core', lineNumber: 0 } },
  { id: 6, callFrame: { functionName: 'runMicrotasks', url: '', lineNumber: 0 }, children: [7] },
  { id: 7, callFrame: { functionName: 'tryPush', url: 'file:///x/node_modules/@grpc/grpc-js/build/src/subchannel-call.js', lineNumber: 0 } },
  { id: 8, callFrame: { functionName: 'processImmediate', url: 'node:internal/timers', lineNumber: 0 }, children: [9] },
  { id: 9, callFrame: { functionName: 'finishSendTrailers', url: 'node:internal/http2/core', lineNumber: 0 } },
];

function profile(samples: number[], deltaUs = 50): CpuProfile {
  return { startTime: 0, nodes, samples, timeDeltas: samples.map(() => deltaUs) };
}

describe('CPU by event-loop wakeup', () => {
  it('names each burst between idle samples by what ran in it', () => {
    // request (3 samples), idle, native only (2), idle, etcd answer with its trailers (4), idle
    const kinds = profileBursts(profile([5, 3, 3, 2, 3, 3, 2, 7, 3, 9, 3, 2]));
    expect(kinds).toEqual([
      { kind: 'etcd answer + trailers', bursts: 1, cpuMs: 0.2 },
      { kind: 'lock.v1 request', bursts: 1, cpuMs: 0.15 },
      { kind: 'native only', bursts: 1, cpuMs: 0.1 },
    ]);
  });

  it("does not count a descheduled sampler's gap as CPU, nor samples outside the window", () => {
    const gappy: CpuProfile = { startTime: 0, nodes, samples: [3, 3, 2], timeDeltas: [50, 50_000, 50] };
    expect(profileBursts(gappy)).toEqual([{ kind: 'native only', bursts: 1, cpuMs: 0.25 }]);
    expect(profileBursts(profile([5, 2, 7, 2]), 0.12)).toEqual([{ kind: 'etcd answer', bursts: 1, cpuMs: 0.05 }]);
  });
});
