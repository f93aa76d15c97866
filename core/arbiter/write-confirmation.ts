// ADR-03, issue 19: no regressed hold after a reconnect. The seal guard checks every response header,
// but a write's header arrives with the write already committed: the first grant txn an arbiter sent to
// a restored log committed a hold with a token at or below one already issued, and only its answer
// sealed the arbiter. So before its first write on a new connection, or after any call that failed in a
// way that may mean the server went away, the arbiter confirms the cluster's identity (cluster ID bound
// to the epoch record), its revision floor and its epoch floor with a linearizable read (`confirm`, the
// epoch record read through the seal guard), and writes only once that read has passed.
//
// A connection is known to be new when LockLog.connectionGeneration changes, or when a call failed with
// a code that says nothing about the request itself (not-leader, timeout, unavailable, ...): the client
// may reconnect to another process before the next call. The confirmation is counted per "suspicion
// serial": a read sent before a later suspicion confirms nothing after it.
import { assert } from '../assert.js';
import { isLockError } from '../lock-error.js';
import type { LockLogErrorCode } from '../ports/lock-log-error.js';

/** A confirmation read that met a leader change or an unreachable member is tried again (it is a read: safe to repeat). */
const MAX_CONFIRM_ATTEMPTS = 5;
const CONFIRM_RETRY_MS = 100;

/** Answers that come from a server that understood the request: the connection is as good as before. */
const DEFINITIVE_CODES: ReadonlySet<LockLogErrorCode> = new Set(['lease-not-found', 'lease-exists', 'compacted', 'future-revision', 'invalid-argument', 'request-too-large']);

export function suspectsConnection(code: LockLogErrorCode): boolean {
  return !DEFINITIVE_CODES.has(code);
}

export class WriteConfirmation {
  /** Bumped at every suspicion (an error, a new connection generation). */
  private serial = 0;
  private confirmedSerial: number | undefined;
  private lastGeneration: number | undefined;
  private confirming: Promise<void> | undefined;

  /**
   * `generation` reads LockLog.connectionGeneration (a constant when the log has none); `confirm` is the
   * linearizable read that seals the arbiter (rejects) when the cluster is not the one it served.
   */
  constructor(
    private readonly generation: () => number,
    private readonly confirm: () => Promise<unknown>,
    private readonly sleep: (ms: number) => Promise<void> = () => Promise.resolve(),
  ) {}

  /** A call failed in a way that may mean a new connection next time. */
  suspect(): void {
    this.serial += 1;
  }

  /** True while the next write must first be confirmed. */
  get needed(): boolean {
    return this.confirmedSerial !== this.current();
  }

  /**
   * Resolves once a confirmation read sent after the last suspicion has passed; rejects with that read's
   * error (typically `sealed`). Concurrent writers share one read.
   */
  async beforeWrite(): Promise<void> {
    if (!this.needed) return;
    this.confirming ??= this.confirmOnce().finally(() => {
      this.confirming = undefined;
    });
    await this.confirming;
  }

  /** After a write the arbiter sealed and opened again itself (an epoch advance): its answer confirmed the cluster. */
  confirmedNow(): void {
    this.confirmedSerial = this.current();
  }

  private async confirmOnce(): Promise<void> {
    const serial = this.current();
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.confirm();
        break;
      } catch (error) {
        // A restored cluster electing its first leader answers not-leader: wait for it rather than fail the write.
        const transient = isLockError(error, 'unavailable') || isLockError(error, 'indeterminate');
        if (!transient || attempt >= MAX_CONFIRM_ATTEMPTS) throw error;
        await this.sleep(CONFIRM_RETRY_MS);
      }
    }
    // A suspicion while the read was in flight leaves `needed` true: the next write reads again.
    if (serial === this.current()) this.confirmedSerial = serial;
    assert(this.confirmedSerial === undefined || this.confirmedSerial <= this.serial, 'a confirmation cannot be ahead of the suspicions');
  }

  private current(): number {
    const generation = this.generation();
    if (generation !== this.lastGeneration) {
      if (this.lastGeneration !== undefined) this.serial += 1;
      this.lastGeneration = generation;
    }
    return this.serial;
  }
}
