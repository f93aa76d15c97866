import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leaseId, type LeaseId } from '../../core/units.js';
import { LeaseExpiryNotifier, LeaseHeap } from './lease-queue.js';

describe('LeaseHeap (lease/lease_queue.go LeaseQueue)', () => {
  it('pops in time order under random pushes and reschedules', () => {
    const steps = fc.array(fc.tuple(fc.nat(50), fc.integer({ min: 0, max: 1000 })), { maxLength: 200 });
    fc.assert(
      fc.property(steps, (ops) => {
        const heap = new LeaseHeap();
        const items: ReturnType<LeaseHeap['push']>[] = [];
        for (const [pick, time] of ops) {
          const existing = items[pick];
          if (pick % 3 === 0 && existing !== undefined) heap.reschedule(existing, time);
          else items.push(heap.push(leaseId(BigInt(items.length + 1)), time));
        }
        const expected = items.map((item) => item.timeMs).sort((a, b) => a - b);
        const popped: number[] = [];
        for (let item = heap.pop(); item !== undefined; item = heap.pop()) popped.push(item.timeMs);
        expect(popped).toEqual(expected);
      }),
    );
  });
});

describe('LeaseExpiryNotifier (LeaseExpiredNotifier: one item per lease)', () => {
  it('moves a lease instead of adding a second item, and forgets it on unregister', () => {
    const notifier = new LeaseExpiryNotifier();
    const a: LeaseId = leaseId(1n);
    notifier.registerOrUpdate(a, 100);
    notifier.registerOrUpdate(leaseId(2n), 50);
    notifier.registerOrUpdate(a, 10);
    expect(notifier.size).toBe(2);
    expect(notifier.poll()).toMatchObject({ id: a, timeMs: 10 });
    notifier.unregister();
    expect(notifier.poll()?.id).toBe(2n);
    notifier.registerOrUpdate(a, 5);
    expect(notifier.size).toBe(2);
  });
});
