// Which holds a library fence is recorded for, in the gate (src/gate/client/client-worker.ts) and in its
// prediction (gate-prediction.ts): one rule for both worlds (issue 32), so `--compare-sim`'s fence rows
// compare fences, not two ways of recording them.
//
// The library fences a session, not a hold (ADR-10, ADR-12: one session per TTL carries every hold of the
// client). A fence is recorded for
// - the hold the client still has: the handle's onFence (the client worker and the prediction pass one);
// - a hold it has released whose release is not known to have deleted it (ReleasedHandleFences below): a
//   released handle gets no onFence, but its hold stays in the log until the release lands, and the
//   deadline check counts that fence (ADR-12, "or would have, had the holder not released the handle").
// Not for a hold whose release was answered: it is gone from the log, and nothing of it was fenced. The
// prediction once took the fence of every hold the log had ever granted on the session (the deadline
// probe's rule, right for the deadline check, which reads expired holds only); a hold released seconds
// before a later fault cut its client off then read as fenced, and every fault at which one was open got a
// "bystander fence" 5-10 s later that the real gate never showed (5 m gate, seeds 1-3: pause, resume, crash
// and restart of members and arbiters, heal).

/** What the rule reads of a handle: whether its session is fenced. */
export interface FencedHandle {
  readonly fenced: boolean;
}

/** Released handles whose release is not known to have deleted the hold, reported when the library fences their session. */
export class ReleasedHandleFences<H extends FencedHandle> {
  private readonly unconfirmed = new Map<H, () => void>();

  /** Before the release is sent: from now until `confirmed`, a fence of the handle's session is reported. */
  watch(handle: H, report: () => void): void {
    this.unconfirmed.set(handle, report);
  }

  /** The release answered that it deleted the hold: no later fence is of this hold. */
  confirmed(handle: H): void {
    this.unconfirmed.delete(handle);
  }

  /**
   * The library fenced a session (LockClientOptions.onSessionFenced, or its closeSession in the simulator):
   * reports, once each, the watched handles that are fenced now.
   */
  sessionFenced(): void {
    for (const [handle, report] of this.unconfirmed) {
      if (!handle.fenced) continue;
      this.unconfirmed.delete(handle);
      report();
    }
  }

  /** How many releases are watched (for tests). */
  get size(): number {
    return this.unconfirmed.size;
  }
}
