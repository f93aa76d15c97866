// The kernel's event queue: a binary min-heap ordered by (time, sequence), stored as parallel typed
// arrays so that scheduling and popping an event allocate nothing but the callback the caller made.
//
// Layout. Heap order lives in `times`, `seqs` and `slots` (three values moved together). A *slot* holds
// the callback and the event's current heap position, so cancel removes an event in O(log n) instead of
// leaving garbage in the heap. Slots are recycled through a free list; a per-slot generation makes a
// stale id (of an event that already ran or was cancelled) harmless. An EventId packs both:
// id = generation * SLOT_SPACE + slot, well inside 2^53.

export type EventCallback = () => unknown;

/** An opaque handle for cancel(); never reused while the event is pending. */
export type EventId = number;

/** The hard upper bound on events pending at once (2^22); also bounds EventId packing. */
export const SLOT_SPACE = 4_194_304;
const GENERATION_SPACE = 2 ** 31;
const INITIAL_CAPACITY = 1024;

export class EventHeap {
  private times = new Float64Array(INITIAL_CAPACITY);
  private seqs = new Float64Array(INITIAL_CAPACITY);
  private slots = new Int32Array(INITIAL_CAPACITY);
  private callbacks: Array<EventCallback | undefined> = [];
  /** Heap position of each slot's event, or -1 when the slot is free. */
  private positions = new Int32Array(INITIAL_CAPACITY).fill(-1);
  private generations = new Float64Array(INITIAL_CAPACITY);
  private freeSlots = new Int32Array(INITIAL_CAPACITY);
  private freeCount = 0;
  private slotCount = 0;
  private heapSize = 0;

  /** `maxPending` (at most SLOT_SPACE) bounds events pending at once; exceeding it throws naming it. */
  constructor(private readonly maxPending: number = SLOT_SPACE) {
    if (!(maxPending >= 1 && maxPending <= SLOT_SPACE)) {
      throw new RangeError(`EventHeap: maxPendingEvents must be in 1..${SLOT_SPACE}, got ${maxPending}`);
    }
  }

  get size(): number {
    return this.heapSize;
  }

  /** Time of the earliest event; only valid when size > 0. */
  peekTime(): number {
    return this.times[0]!;
  }

  push(time: number, seq: number, callback: EventCallback): EventId {
    const slot = this.allocateSlot();
    this.callbacks[slot] = callback;
    this.siftUp(this.heapSize++, time, seq, slot);
    return this.generations[slot]! * SLOT_SPACE + slot;
  }

  /**
   * Removes the earliest event and returns its callback; its time is peekTime() before the call.
   * Only valid when size > 0.
   */
  pop(): EventCallback {
    const slot = this.slots[0]!;
    const callback = this.callbacks[slot]!;
    this.removeAt(0);
    this.freeSlot(slot);
    return callback;
  }

  /** Removes a pending event; false if the id is stale (already run or cancelled). */
  cancel(id: EventId): boolean {
    const slot = id % SLOT_SPACE;
    const generation = (id - slot) / SLOT_SPACE;
    if (slot >= this.slotCount || this.generations[slot] !== generation) return false;
    const position = this.positions[slot]!;
    if (position < 0) return false;
    this.removeAt(position);
    this.freeSlot(slot);
    return true;
  }

  private removeAt(position: number): void {
    const last = --this.heapSize;
    if (position === last) return;
    const time = this.times[last]!;
    const seq = this.seqs[last]!;
    const slot = this.slots[last]!;
    if (position > 0 && before(time, seq, this.times[(position - 1) >> 1]!, this.seqs[(position - 1) >> 1]!)) {
      this.siftUp(position, time, seq, slot);
    } else {
      this.siftDown(position, time, seq, slot);
    }
  }

  private siftUp(start: number, time: number, seq: number, slot: number): void {
    const { times, seqs, slots, positions } = this;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentTime = times[parent]!;
      if (parentTime < time || (parentTime === time && seqs[parent]! < seq)) break;
      times[i] = parentTime;
      seqs[i] = seqs[parent]!;
      const moved = slots[parent]!;
      slots[i] = moved;
      positions[moved] = i;
      i = parent;
    }
    this.place(i, time, seq, slot);
  }

  private siftDown(start: number, time: number, seq: number, slot: number): void {
    const { times, seqs, slots, positions } = this;
    const size = this.heapSize;
    let i = start;
    while (true) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (right < size && before(times[right]!, seqs[right]!, times[left]!, seqs[left]!)) child = right;
      if (!before(times[child]!, seqs[child]!, time, seq)) break;
      times[i] = times[child]!;
      seqs[i] = seqs[child]!;
      const moved = slots[child]!;
      slots[i] = moved;
      positions[moved] = i;
      i = child;
    }
    this.place(i, time, seq, slot);
  }

  private place(i: number, time: number, seq: number, slot: number): void {
    this.times[i] = time;
    this.seqs[i] = seq;
    this.slots[i] = slot;
    this.positions[slot] = i;
  }

  private allocateSlot(): number {
    if (this.freeCount > 0) return this.freeSlots[--this.freeCount]!;
    if (this.slotCount >= this.maxPending) {
      throw new Error(`kernel: more than maxPendingEvents (${this.maxPending}) events pending at once; raise KernelOptions.maxPendingEvents (at most ${SLOT_SPACE}) or look for a component scheduling without bound`);
    }
    if (this.slotCount === this.positions.length) this.grow();
    return this.slotCount++;
  }

  private freeSlot(slot: number): void {
    this.callbacks[slot] = undefined;
    this.positions[slot] = -1;
    this.generations[slot] = (this.generations[slot]! + 1) % GENERATION_SPACE;
    this.freeSlots[this.freeCount++] = slot;
  }

  private grow(): void {
    const capacity = Math.min(this.positions.length * 2, SLOT_SPACE);
    this.times = growFloat(this.times, capacity);
    this.seqs = growFloat(this.seqs, capacity);
    this.generations = growFloat(this.generations, capacity);
    this.slots = growInt(this.slots, capacity, 0);
    this.freeSlots = growInt(this.freeSlots, capacity, 0);
    this.positions = growInt(this.positions, capacity, -1);
  }
}

function before(timeA: number, seqA: number, timeB: number, seqB: number): boolean {
  return timeA < timeB || (timeA === timeB && seqA < seqB);
}

function growFloat(old: Float64Array<ArrayBuffer>, capacity: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(capacity);
  next.set(old);
  return next;
}

function growInt(old: Int32Array<ArrayBuffer>, capacity: number, fill: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(capacity).fill(fill);
  next.set(old);
  return next;
}
