// Faults of an arbiter's lock log that no network fault makes (issue 11's widened explorer): a watch that
// stays lossy across many rounds (its stream open, its events gone, so ADR-15's poll fallback must carry
// every waiter), and txn answers lost after the txn committed (the arbiter is told `timeout`, indeterminate,
// once its call's deadline passes, up to `answerTimeoutMs` later, as etcd's client reports it), so that grants,
// releases and durable-line writes meet in-doubt outcomes (ADR-14/15, L1/L2). One LogFaults per arbiter
// process, surviving its restarts; World wraps each incarnation's log when WorldOptions.logFaults is set,
// and scenarios/faults.ts switches them. Switched off, a wrapped log answers exactly as the inner one.
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { Clock } from '../../core/ports/clock.js';
import type { LockLog, TxnRequest } from '../../core/ports/lock-log.js';

export class LogFaults {
  /** While set, watch event batches are dropped (the stream stays open). */
  dropWatchEvents = false;
  /** While above 0, every Nth writing txn commits and its answer is lost. */
  loseEveryNth = 0;
  /** How long after the commit the arbiter is told its call timed out. */
  answerTimeoutMs = 0;
  private writes = 0;
  /** Counts for the run's metrics. */
  readonly counts = { watchBatchesDropped: 0, answersLost: 0 };

  /** The log an arbiter incarnation speaks, with these faults applied. */
  readonly wrap = (log: LockLog, clock: Clock): LockLog => ({
    txn: async (request) => {
      const sentMs = clock.now();
      const response = await log.txn(request);
      if (!response.succeeded || !this.losesAnswerOf(request)) return response;
      this.counts.answersLost += 1;
      // The call's own deadline (TxnRequest.timeoutMs), when shorter, ends the wait for the lost answer, as it would the client's.
      const deadlineMs = request.timeoutMs !== undefined && request.timeoutMs > 0 ? Math.min(this.answerTimeoutMs, request.timeoutMs) : this.answerTimeoutMs;
      const waitedMs = Math.max(0, deadlineMs - (clock.now() - sentMs));
      if (waitedMs > 0) await clock.sleep(waitedMs);
      throw new LockLogError('timeout', `txn: no answer within ${waitedMs} ms (a lost answer, injected; the write may or may not have taken effect)`, { outcome: 'indeterminate' });
    },
    range: (request) => log.range(request),
    leaseGrant: (ttlSeconds) => log.leaseGrant(ttlSeconds),
    leaseKeepAlive: (id) => log.leaseKeepAlive(id),
    leaseRevoke: (id) => log.leaseRevoke(id),
    leaseTimeToLive: (id, options) => log.leaseTimeToLive(id, options),
    watch: (request, handlers) =>
      log.watch(request, {
        onEvents: (batch) => {
          if (!this.dropWatchEvents) return handlers.onEvents(batch);
          this.counts.watchBatchesDropped += 1;
        },
        onError: (error) => handlers.onError(error),
      }),
    compact: (revision) => log.compact(revision),
    status: () => log.status(),
    close: () => log.close(),
  });

  private losesAnswerOf(request: TxnRequest): boolean {
    if (this.loseEveryNth <= 0 || request.success.every((op) => op.type === 'range')) return false; // a read changes nothing: its loss is no doubt
    this.writes += 1;
    return this.writes % this.loseEveryNth === 0;
  }
}
