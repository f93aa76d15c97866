// Min-heaps of (lease, time) for the lessor (lease/lease_queue.go): the expiry notifier keeps one item per
// lease and moves it on renew (LeaseExpiredNotifier.RegisterOrUpdate); the checkpoint queue may hold
// several items per lease (heap.Push in scheduleCheckpointIfNeeded). Times are ms of the member's clock.
import type { LeaseId } from '../../core/units.js';

export interface TimedLease {
  readonly id: LeaseId;
  timeMs: number;
}

interface Slot extends TimedLease {
  index: number;
}

export class LeaseHeap {
  private readonly slots: Slot[] = [];

  get size(): number {
    return this.slots.length;
  }

  peek(): TimedLease | undefined {
    return this.slots[0];
  }

  push(id: LeaseId, timeMs: number): TimedLease {
    const slot: Slot = { id, timeMs, index: this.slots.length };
    this.slots.push(slot);
    this.up(slot.index);
    return slot;
  }

  pop(): TimedLease | undefined {
    const top = this.slots[0];
    if (top === undefined) return undefined;
    this.swap(0, this.slots.length - 1);
    this.slots.pop();
    if (this.slots.length > 0) this.down(0);
    return top;
  }

  /** Moves an item already in the heap to a new time (heap.Fix). */
  reschedule(item: TimedLease, timeMs: number): void {
    const slot = item as Slot;
    slot.timeMs = timeMs;
    this.up(slot.index);
    this.down(slot.index);
  }

  private up(start: number): void {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.time(parent) <= this.time(i)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(start: number): void {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.slots.length) return;
      const right = left + 1;
      const child = right < this.slots.length && this.time(right) < this.time(left) ? right : left;
      if (this.time(i) <= this.time(child)) return;
      this.swap(i, child);
      i = child;
    }
  }

  private time(index: number): number {
    return (this.slots[index] as Slot).timeMs;
  }

  private swap(a: number, b: number): void {
    const first = this.slots[a] as Slot;
    const second = this.slots[b] as Slot;
    this.slots[a] = second;
    this.slots[b] = first;
    second.index = a;
    first.index = b;
  }
}

/** One expiry item per lease (lease_queue.go LeaseExpiredNotifier). */
export class LeaseExpiryNotifier {
  private readonly heap = new LeaseHeap();
  private readonly items = new Map<LeaseId, TimedLease>();

  get size(): number {
    return this.items.size;
  }

  registerOrUpdate(id: LeaseId, timeMs: number): void {
    const existing = this.items.get(id);
    if (existing === undefined) this.items.set(id, this.heap.push(id, timeMs));
    else this.heap.reschedule(existing, timeMs);
  }

  /** The earliest item, left in place (Poll). */
  poll(): TimedLease | undefined {
    return this.heap.peek();
  }

  /** Removes the earliest item (Unregister). */
  unregister(): void {
    const item = this.heap.pop();
    if (item !== undefined) this.items.delete(item.id);
  }
}
