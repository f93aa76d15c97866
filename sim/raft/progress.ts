// The leader's view of one follower (etcd raft/tracker/progress.go and inflights.go, 3.4): match and
// next indexes, probe vs replicate state, flow control by a bounded window of in-flight MsgApps, and
// RecentActive for CheckQuorum. No snapshot state: this simulator does not compact the log.

import { assert } from '../../core/assert.js';

/** etcd tracker.Inflights: the last index of each MsgApp in flight, oldest first, at most `capacity`. */
export class Inflights {
  private readonly lastIndexes: number[] = [];

  constructor(readonly capacity: number) {}

  get count(): number {
    return this.lastIndexes.length;
  }

  full(): boolean {
    return this.lastIndexes.length >= this.capacity;
  }

  add(lastIndex: number): void {
    assert(!this.full(), () => `Inflights: add to a full window (capacity ${this.capacity})`);
    this.lastIndexes.push(lastIndex);
  }

  /** Frees every message whose last index is <= `index` (they were acknowledged). */
  freeLE(index: number): void {
    let freed = 0;
    while (freed < this.lastIndexes.length && this.lastIndexes[freed]! <= index) freed++;
    if (freed > 0) this.lastIndexes.splice(0, freed);
  }

  freeFirstOne(): void {
    this.lastIndexes.shift();
  }

  reset(): void {
    this.lastIndexes.length = 0;
  }
}

export type ProgressState = 'probe' | 'replicate';

export class Progress {
  match = 0;
  next: number;
  state: ProgressState = 'probe';
  /** Probe: one MsgApp is out; wait for its answer (or a heartbeat answer) before the next. */
  probeSent = false;
  /** Heard from since the last CheckQuorum (MsgAppResp or MsgHeartbeatResp). */
  recentActive = false;
  readonly inflights: Inflights;

  constructor(next: number, maxInflight: number) {
    this.next = next;
    this.inflights = new Inflights(maxInflight);
  }

  /** etcd MaybeUpdate: an acknowledgement of `index`; true if match moved. */
  maybeUpdate(index: number): boolean {
    let updated = false;
    if (this.match < index) {
      this.match = index;
      updated = true;
      this.probeSent = false;
    }
    this.next = Math.max(this.next, index + 1);
    return updated;
  }

  /** Replicate state: entries up to `lastIndex` were sent; pipeline the next ones. */
  optimisticUpdate(lastIndex: number): void {
    this.next = lastIndex + 1;
  }

  /**
   * etcd MaybeDecrTo: a rejection of the MsgApp at `rejected` from a follower whose last index is
   * `followerLast`; false if it is stale (out of order).
   */
  maybeDecrTo(rejected: number, followerLast: number): boolean {
    if (this.state === 'replicate') {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, followerLast + 1), 1);
    this.probeSent = false;
    return true;
  }

  becomeProbe(): void {
    this.resetState('probe');
    this.next = this.match + 1;
  }

  becomeReplicate(): void {
    this.resetState('replicate');
    this.next = this.match + 1;
  }

  /** Whether sending more MsgApps must wait. */
  isPaused(): boolean {
    return this.state === 'probe' ? this.probeSent : this.inflights.full();
  }

  private resetState(state: ProgressState): void {
    this.probeSent = false;
    this.state = state;
    this.inflights.reset();
  }
}
