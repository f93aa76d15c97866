import { describe, expect, it } from 'vitest';
import { layerOf, summarize } from './cpu-profile-summary.js';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe('where a CPU profile spent its time', () => {
  it('puts each frame in its layer by script path', () => {
    expect(layerOf(frame('verb', 'file:///x/node_modules/@connectrpc/connect/dist/esm/a.js'))).toBe('connect-es (@connectrpc)');
    expect(layerOf(frame('makeUnaryRequest', 'file:///x/node_modules/@grpc/grpc-js/build/src/client.js'))).toBe('grpc-js (@grpc/grpc-js)');
    expect(layerOf(frame('acquire', 'file:///x/dist/js/core/arbiter/acquire.js'))).toBe('lockstep core/');
    expect(layerOf(frame('createAbortSignal', 'node:internal/abort_controller'))).toBe('node: abort signals, events');
    expect(layerOf(frame('(garbage collector)', ''))).toBe('GC');
    expect(layerOf(frame('(idle)', ''))).toBe('idle');
  });

  it('shares busy self time by layer, leaving idle out, within the window asked', () => {
    const profile = {
      startTime: 0,
      nodes: [{ id: 1, callFrame: frame('(idle)', '') }, { id: 2, callFrame: frame('(garbage collector)', '') }, { id: 3, callFrame: frame('acquire', 'file:///x/dist/js/core/a.js') }],
      samples: [1, 2, 3, 3, 3],
      timeDeltas: [1000, 1000, 1000, 1000, 1000],
    };
    const all = summarize(profile);
    expect(all.busyMs).toBe(4);
    expect(all.layers).toEqual([{ layer: 'lockstep core/', percent: 75 }, { layer: 'GC', percent: 25 }]);
    // From 3 ms on: only the last three samples (at 3, 4 and 5 ms).
    expect(summarize(profile, 5, 3).layers).toEqual([{ layer: 'lockstep core/', percent: 100 }]);
  });
});
