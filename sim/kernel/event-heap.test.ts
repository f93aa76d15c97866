import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventHeap } from './event-heap.js';

describe('EventHeap', () => {
  it('pops in (time, seq) order for any schedule, with any events cancelled', () => {
    const operation = fc.record({ time: fc.integer({ min: 0, max: 20 }).map((t) => t / 4), cancel: fc.boolean() });
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 300 }), (operations) => {
        const heap = new EventHeap();
        const fired: number[] = [];
        const ids = operations.map(({ time }, seq) => heap.push(time, seq, () => fired.push(seq)));
        operations.forEach(({ cancel }, seq) => {
          if (cancel) expect(heap.cancel(ids[seq]!)).toBe(true);
        });
        while (heap.size > 0) heap.pop()();
        const expected = operations
          .map(({ time, cancel }, seq) => ({ time, cancel, seq }))
          .filter(({ cancel }) => !cancel)
          .sort((a, b) => a.time - b.time || a.seq - b.seq)
          .map(({ seq }) => seq);
        expect(fired).toEqual(expected);
      }),
    );
  });

  it('ignores stale ids, even after their slot is reused', () => {
    const heap = new EventHeap();
    const first = heap.push(1, 0, () => {});
    heap.pop();
    const second = heap.push(2, 1, () => {});
    expect(second).not.toBe(first);
    expect(heap.cancel(first)).toBe(false);
    expect(heap.cancel(second)).toBe(true);
    expect(heap.cancel(second)).toBe(false);
    expect(heap.size).toBe(0);
  });

  it('grows past its initial capacity and enforces maxPendingEvents by name', () => {
    const heap = new EventHeap(5000);
    for (let i = 0; i < 5000; i++) heap.push(5000 - i, i, () => {});
    expect(heap.peekTime()).toBe(1);
    expect(() => heap.push(0, 5000, () => {})).toThrow('maxPendingEvents (5000)');
  });
});
