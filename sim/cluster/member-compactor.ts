// etcd's periodic auto-compaction (etcdserver/api/v3compactor/periodic.go, 3.4.23), on one member
// incarnation, with its settings as data (EtcdTiming.autoCompaction; off by default, as etcd's
// --auto-compaction-retention is 0). Issue 16: without it the MVCC history grows without bound.
//
// The loop, as periodic.go Run: every retry interval (retention / 10, at most an hour / 10) it samples
// the store's revision into a window of retention / retryInterval + 1 samples, whose first is the
// revision of one retention ago; once `retention` has passed since the last success (the first time),
// then every compact interval (retention, at most an hour), it proposes a Compact to that revision
// through raft and waits for the answer (the Go loop blocks in Compact). Success, or ErrCompacted,
// is a success. Only the leader compacts: etcd pauses the compactor on a member that is not leader
// (server.go updateLeadership), but the loop still samples while paused.
import type { Revision } from '../../core/units.js';
import { revision } from '../../core/units.js';
import type { MemberRuntime } from './member-runtime.js';

/** --auto-compaction-mode periodic --auto-compaction-retention <retentionMs>. */
export interface AutoCompaction {
  readonly mode: 'periodic';
  readonly retentionMs: number;
}

const HOUR_MS = 3_600_000;
/** periodic.go retryDivisor. */
const RETRY_DIVISOR = 10;

export function compactIntervalMs(settings: AutoCompaction): number {
  return Math.min(settings.retentionMs, HOUR_MS);
}

export function retryIntervalMs(settings: AutoCompaction): number {
  return compactIntervalMs(settings) / RETRY_DIVISOR;
}

/** How many samples the window holds: its first is the revision of one retention ago. */
export function retentionSamples(settings: AutoCompaction): number {
  return Math.floor(settings.retentionMs / retryIntervalMs(settings)) + 1;
}

export class PeriodicCompactor {
  private readonly revs: number[] = [];
  private lastSuccessLocalMs: number;
  private baseIntervalMs: number;

  constructor(
    private readonly runtime: MemberRuntime,
    private readonly settings: AutoCompaction,
  ) {
    this.lastSuccessLocalMs = runtime.member.process.localNow();
    this.baseIntervalMs = settings.retentionMs;
    this.loop();
  }

  // A crash ends the incarnation with its timers (the goroutine dies with the process); a restart makes
  // a new runtime and a new compactor, whose window starts empty, as etcd's does.
  private loop(): void {
    this.revs.push(this.runtime.state.store.currentRev);
    if (this.revs.length > retentionSamples(this.settings)) this.revs.shift();
    this.runtime.member.process.setTimer(retryIntervalMs(this.settings), () => this.afterRetry());
  }

  private afterRetry(): void {
    const { process } = this.runtime.member;
    // Paused (not leader), or not yet time: sample again.
    if (!this.runtime.isLeader() || process.localNow() - this.lastSuccessLocalMs < this.baseIntervalMs) return this.loop();
    this.baseIntervalMs = compactIntervalMs(this.settings);
    const target: Revision = revision(BigInt(this.revs[0] ?? 0));
    this.runtime.trace('etcd.compact.auto', { revision: target });
    this.runtime.proposals.propose({ kind: 'compaction', revision: target }, (result) => {
      if (result.ok || result.error.code === 'compacted') this.lastSuccessLocalMs = process.localNow();
      this.loop();
    });
  }
}
