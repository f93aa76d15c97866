// The trace's cheaper recording path (fragments fed to the hash, cached quoting, omitted kinds) keeps
// the hash of the canonical line byte for byte.
import { describe, expect, it } from 'vitest';
import { canonicalText } from './canonical.js';
import { Fnv1a64 } from './fnv64.js';
import { Trace } from './trace.js';

describe('Trace: cheaper recording', () => {
  it('hashes exactly the canonical line it always did (fed in fragments, never built)', () => {
    const trace = new Trace(() => 12.5);
    const fields = { to: 'etcd-2', id: 7, type: 'MsgApp', nested: { b: [1n, 'é', -0, Infinity], a: null } };
    trace.record('net.send', fields, 'etcd-1');
    const expected = new Fnv1a64();
    expected.updateString(`0|${JSON.stringify(12.5)}|${JSON.stringify('etcd-1')}|${JSON.stringify('net.send')}|${canonicalText(fields)}\n`);
    expect(trace.hash()).toBe(expected.hex());
    // The same two records hashed by the implementation that built each line as one string.
    trace.record('x');
    expect(trace.hash()).toBe('5ef10867df505b9f');
  });

  it('feeds a number as the bytes of its text, whatever path it takes', () => {
    const numbers = [0, -0, 7, 10, 99, 100, 12345, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, 0.1, 12.5, -3, -0.5, 1e-7, NaN, Infinity, -Infinity];
    for (const value of numbers) {
      const fast = new Fnv1a64();
      fast.pushNumber(value);
      const slow = new Fnv1a64();
      slow.updateString(String(value));
      expect(fast.hex(), String(value)).toBe(slow.hex());
    }
    // Records at integer, fractional and repeated times hash as their canonical lines.
    let nowMs = 3;
    const trace = new Trace(() => nowMs);
    const expected = new Fnv1a64();
    for (const [i, timeMs] of [3, 3.25, 3.25, 1e21, 4].entries()) {
      nowMs = timeMs;
      trace.record('k', { a: i, b: [i, 0.5] });
      expected.updateString(`${i}|${String(timeMs)}|""|"k"|{"a":${i},"b":[${i},0.5]}\n`);
    }
    expect(trace.hash()).toBe(expected.hex());
  });

  it('leaves out the kinds it is told to omit, and only those', () => {
    const full = new Trace(() => 1);
    const slim = new Trace(() => 1, { omitKinds: ['net.send'] });
    const plain = new Trace(() => 1);
    for (const trace of [full, slim]) {
      trace.record('net.send', { id: 1 }, 'a');
      trace.record('raft.commit', { index: 3 }, 'a');
    }
    plain.record('raft.commit', { index: 3 }, 'a');
    expect(slim.count).toBe(1);
    expect([slim.includes('net.send'), slim.includes('raft.commit'), full.includes('net.send')]).toEqual([false, true, true]);
    expect(slim.hash()).toBe(plain.hash());
    expect(slim.hash()).not.toBe(full.hash());
  });
});
