// The audit tailer (ADR-21): watches the whole lock key space from its last checkpointed revision, turns
// each revision into audit events (interpret.ts) and writes them to an AuditStore every few seconds, with
// the checkpoint in the same write. A crash loses at most the unflushed events, which the next run reads
// again from the checkpoint; the store skips what it already has, so each event is written once. When etcd
// has compacted revisions the tailer had not read, it records the gap (both revisions) and goes on: a gap is
// written, never silence. The same procedure runs on real etcd (src/audit/, `lockstep audit tail`) and on
// the simulated cluster (sim/world/audit-node.ts); one tailer per cluster is election.ts's job.
import { EPOCH_KEY, parseEpochRecord } from '../arbiter/records.js';
import { type CancelSignal, CancelSource, CancelledError, onCancel } from '../cancel.js';
import type { Clock } from '../ports/clock.js';
import type { LockLog, Watch, WatchBatch } from '../ports/lock-log.js';
import { type LockLogError, isLockLogError } from '../ports/lock-log-error.js';
import { type Random, jitteredMs } from '../ports/random.js';
import type { WallClock } from '../ports/wall-clock.js';
import { type ClusterId, type Revision, revision as toRevision } from '../units.js';
import type { AuditRecord, HistoryProbe } from './events.js';
import { FRESH_LOG_STATE, type InterpreterState, interpretRevision } from './interpret.js';
import { HONEST_TAILER_SEAMS, type TailerSeams } from './seams.js';
import type { AuditStore } from './store.js';
import { Unwritten } from './unwritten.js';
import { assert } from '../assert.js';

/**
 * The tailer watches every key (the empty prefix): every revision then reaches it, so its position is the
 * log's head when it is caught up, and a watch that falls silent while the head moves on is seen to stall.
 * The interpreter keeps what lockstep writes (holds, markers, sessions, /sys records) and ignores the rest.
 */
export const AUDIT_WATCH_PREFIX = '';
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 2_000;
/** A flush starts early once this many events wait (TigerStyle: a limit on everything). */
const DEFAULT_MAX_BUFFERED_EVENTS = 10_000;
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 5_000;
/**
 * A watch that delivers nothing for this many checkpoint intervals while the log's head is past the
 * tailer's position has stalled (its member died without a reset, say): it is cancelled and opened again.
 */
const STALL_INTERVALS = 3;
/** Compactions that may overtake the tailer while it reads past one. */
const MAX_COMPACTIONS_IN_A_ROW = 10;

export interface TailerOptions {
  readonly log: LockLog;
  readonly store: AuditStore;
  readonly clock: Clock;
  readonly wallClock: WallClock;
  readonly random: Random;
  /** Where to start when the store has no checkpoint for the cluster. Default 1: all the history etcd still has. */
  readonly fromRevision?: Revision;
  readonly checkpointIntervalMs?: number;
  readonly maxBufferedEvents?: number;
  /** Stops the tailer (shutdown, or the election lost): it flushes what it has and returns. */
  readonly signal: CancelSignal;
  /** Called after each flush; the lag is what an operator watches (ADR-21: well inside the compaction window). */
  readonly onProgress?: (progress: TailerProgress) => void;
  /** A flush failed; the events stay buffered and the next interval tries again. */
  readonly onStoreError?: (error: unknown) => void;
  /** The log failed (a watch broke, a read went unanswered); the tailer backs off and tries again. */
  readonly onLogError?: (error: unknown) => void;
  /**
   * Asked before every write: false while this tailer may no longer be the elected one (election.ts), so
   * that two tailers of one cluster do not both write. Default: always.
   */
  readonly mayWrite?: () => boolean;
  readonly seams?: TailerSeams;
}

export interface TailerProgress {
  readonly clusterId: ClusterId;
  /** Every revision up to here is in the store. */
  readonly checkpointRevision: Revision;
  /** The newest revision the tailer knows the log has. */
  readonly headRevision: Revision;
  readonly lagRevisions: bigint;
  /** Events and gaps written by this run so far. */
  readonly eventsWritten: number;
  readonly gapsRecorded: number;
  /** Wall ms since the tailer last had every revision it knew of (0: caught up at this flush). */
  readonly behindMs: number;
}

export type TailerStop =
  | { readonly reason: 'stopped'; readonly clusterId: ClusterId | undefined; readonly revision: Revision | undefined }
  /**
   * The log is not the one the store holds the history of, under the same cluster ID (a restore, ADR-03):
   * it answers below the checkpoint (`revision` < `checkpoint`), or no longer has the put the tailer read
   * last (`probe`). Its new writes would take revisions the store already has events for.
   */
  | { readonly reason: 'went-backwards'; readonly clusterId: ClusterId; readonly revision: Revision; readonly checkpoint: Revision; readonly probe?: HistoryProbe };

interface Position {
  readonly clusterId: ClusterId;
  /** The last revision read (or skipped over by a gap). */
  revision: Revision;
  interpreter: InterpreterState;
  /** The last put read, to check at each resume that the log still has this history. */
  probe: HistoryProbe | undefined;
}

type WatchEnd = { readonly kind: 'error'; readonly error: LockLogError } | { readonly kind: 'cluster-changed' } | { readonly kind: 'stopped' } | { readonly kind: 'stalled' };

/** The store could not say where the tailer stopped: retried like a log that does not answer. */
class StoreReadError extends Error {
  constructor(cause: unknown) {
    super(`the audit store could not be read: ${cause instanceof Error ? cause.message : String(cause)}`);
    (this as { cause?: unknown }).cause = cause;
  }
}

export async function runTailer(options: TailerOptions): Promise<TailerStop> {
  return new Tailer(options).run();
}

class Tailer {
  private position: Position | undefined;
  private readonly unwritten: Unwritten;
  private head: Revision = toRevision(0n);
  private caughtUpAtMs: number;
  private eventsWritten = 0;
  private gapsRecorded = 0;
  private readonly seams: TailerSeams;
  /** Ends the open watch as stalled (set while one is open). */
  private endWatch: ((end: WatchEnd) => void) | undefined;
  private lastDeliveryMs = 0;
  /** Stops this run: the caller's signal, or the run ending on its own (then the flusher must end too). */
  private readonly halt = new CancelSource();

  constructor(private readonly options: TailerOptions) {
    this.seams = options.seams ?? HONEST_TAILER_SEAMS;
    this.unwritten = new Unwritten(options.store);
    this.caughtUpAtMs = options.wallClock.nowMs();
  }

  async run(): Promise<TailerStop> {
    const detachCaller = onCancel(this.options.signal, () => this.halt.cancel());
    const flusher = this.flushEvery(this.options.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS);
    try {
      for (let failures = 0; !this.halt.aborted; ) {
        try {
          const stop = await this.tailOneCluster();
          if (stop !== undefined) return stop;
          failures = 0;
        } catch (error) {
          if (this.halt.aborted || error instanceof CancelledError) break;
          if (!isLockLogError(error) && !(error instanceof StoreReadError)) throw error;
          if (isLockLogError(error)) this.options.onLogError?.(error);
          failures += 1;
          if (!(await this.pause(failures))) break;
        }
      }
      return { reason: 'stopped', clusterId: this.position?.clusterId, revision: this.position?.revision };
    } finally {
      detachCaller();
      this.halt.cancel();
      await flusher.catch(() => undefined);
      await this.flushQuietly();
    }
  }

  /** Identifies the cluster, resumes from its checkpoint, and watches until the watch ends or the cluster changes. */
  private async tailOneCluster(): Promise<TailerStop | undefined> {
    const { log } = this.options;
    const answer = await log.range({ key: EPOCH_KEY });
    const clusterId = answer.header.clusterId;
    this.noteHead(answer.header.revision);
    if (this.position === undefined || this.position.clusterId !== clusterId) {
      await this.flushQuietly(); // the old cluster's events go under its own ID before the position moves
      this.head = answer.header.revision;
      const resumed = await this.resume(clusterId);
      if ('reason' in resumed) return resumed;
      this.position = resumed;
    }
    const position = this.position;
    if (answer.header.revision < position.revision) {
      return { reason: 'went-backwards', clusterId, revision: answer.header.revision, checkpoint: position.revision };
    }
    if (!(await this.stillHasProbe(position))) {
      return { reason: 'went-backwards', clusterId, revision: answer.header.revision, checkpoint: position.revision, ...(position.probe === undefined ? {} : { probe: position.probe }) };
    }
    for (;;) {
      let end: WatchEnd;
      try {
        end = await this.watchFrom(position);
      } catch (error) {
        if (!isLockLogError(error)) throw error;
        end = { kind: 'error', error }; // the watch was refused at creation (a member may say `compacted` before `created`)
      }
      await this.flushQuietly();
      if (end.kind === 'stalled') continue; // watch again from where it stopped
      if (end.kind !== 'error') return undefined;
      if (!isLockLogError(end.error, 'compacted') || end.error.compactRevision === undefined) throw end.error;
      await this.skipCompacted(position, end.error.compactRevision);
    }
  }

  /** Whether the log still holds the put the tailer read last (a compacted one cannot say: the watch will). */
  private async stillHasProbe(position: Position): Promise<boolean> {
    const probe = position.probe;
    if (probe === undefined) return true;
    try {
      const read = await this.options.log.range({ key: probe.key, revision: probe.modRevision });
      const kv = read.kvs[0];
      return kv !== undefined && kv.modRevision === probe.modRevision && kv.version === probe.version;
    } catch (error) {
      if (isLockLogError(error, 'compacted')) return true;
      throw error;
    }
  }

  private async resume(clusterId: ClusterId): Promise<Position | TailerStop> {
    const checkpoint = await this.options.store.checkpoint(clusterId).catch((error: unknown) => {
      this.options.onStoreError?.(error);
      throw new StoreReadError(error);
    });
    if (checkpoint !== undefined) {
      this.unwritten.checkpointed = checkpoint.revision;
      if (this.head < checkpoint.revision) return { reason: 'went-backwards', clusterId, revision: this.head, checkpoint: checkpoint.revision };
      return { clusterId, revision: checkpoint.revision, interpreter: { epoch: checkpoint.epoch }, probe: checkpoint.probe };
    }
    this.unwritten.checkpointed = undefined;
    const from = this.options.fromRevision ?? toRevision(1n);
    const before = toRevision(from > 1n ? from - 1n : 0n);
    const position: Position = { clusterId, revision: before, interpreter: FRESH_LOG_STATE, probe: undefined };
    if (before === 0n) return position;
    try {
      position.interpreter = await this.epochAt(before);
    } catch (error) {
      if (!isLockLogError(error, 'compacted') || error.compactRevision === undefined) throw error;
      await this.skipCompacted(position, error.compactRevision);
    }
    return position;
  }

  /** The interpreter's state as of `at`: the epoch record then. */
  private async epochAt(at: Revision): Promise<InterpreterState> {
    const read = await this.options.log.range({ key: EPOCH_KEY, revision: at });
    const kv = read.kvs[0];
    return { epoch: kv === undefined ? 0 : (parseEpochRecord(kv.value)?.epoch ?? 0) };
  }

  /**
   * Revisions position+1 .. compactRevision are gone (the compaction revision keeps its puts, not its
   * deletes): record that as a gap and read on from the compaction revision itself, with the epoch as the
   * log has it there (a grant at that revision packs it; an epoch written at it comes again as a put).
   */
  private async skipCompacted(position: Position, compactRevision: Revision): Promise<void> {
    let to = compactRevision;
    let interpreter: InterpreterState | undefined;
    for (let overtaken = 0; interpreter === undefined; overtaken += 1) {
      try {
        interpreter = await this.epochAt(to);
      } catch (error) {
        // Compacted again while we looked: the gap reaches the newer compaction.
        if (!isLockLogError(error, 'compacted') || error.compactRevision === undefined || error.compactRevision <= to || overtaken >= MAX_COMPACTIONS_IN_A_ROW) throw error;
        to = error.compactRevision;
      }
    }
    this.unwritten.addGap({ clusterId: position.clusterId, fromRevision: toRevision(position.revision + 1n), toRevision: to, detectedAtMs: this.options.wallClock.nowMs() });
    position.interpreter = interpreter;
    // A gap is skipped forward only: the position never moves back (an audit that re-reads is idempotent,
    // one that skips back would re-interpret revisions against a later state).
    assert(to - 1n >= position.revision, () => `audit tailer: a gap up to ${to} would move the position back from ${position.revision}`);
    position.revision = toRevision(to - 1n);
    this.noteHead(to);
  }

  private async watchFrom(position: Position): Promise<WatchEnd> {
    const { log } = this.options;
    const signal = this.halt;
    let settle: (end: WatchEnd) => void = () => {};
    const ended = new Promise<WatchEnd>((resolve) => (settle = resolve));
    let createdAt: Revision = toRevision(0n);
    const watch: Watch = await log.watch(
      { key: AUDIT_WATCH_PREFIX, prefix: true, startRevision: toRevision(position.revision + 1n), prevKv: true },
      {
        onEvents: (batch) => {
          if (batch.header.clusterId !== position.clusterId) return settle({ kind: 'cluster-changed' });
          this.take(position, batch, createdAt);
        },
        onError: (error) => settle({ kind: 'error', error }),
      },
    );
    createdAt = watch.header.revision;
    this.noteHead(watch.header.revision);
    if (watch.header.clusterId !== position.clusterId) settle({ kind: 'cluster-changed' });
    const detach = onCancel(signal, () => settle({ kind: 'stopped' }));
    this.lastDeliveryMs = this.options.clock.now();
    this.endWatch = settle;
    try {
      return await ended;
    } finally {
      this.endWatch = undefined;
      detach();
      await watch.cancel().catch(() => undefined);
    }
  }

  /** Each interval: learn the log's head (for the lag), and end a watch that stays silent behind it. */
  private async watchdog(intervalMs: number): Promise<void> {
    const position = this.position;
    if (position === undefined) return;
    const answer = await this.options.log.range({ key: EPOCH_KEY }).catch(() => undefined);
    if (answer === undefined) return;
    // Another cluster answers (a snapshot restore behind the same endpoints): end the watch so that the
    // run identifies it and resumes there. Leadership used to end the run first; a restore that keeps the
    // election lease alive (the snapshot holds it, a hedged keepalive renews it through a restored member)
    // left the watch open on nothing, and the new cluster's audit empty (swarm seed 1656).
    if (answer.header.clusterId !== position.clusterId) return this.endWatch?.({ kind: 'cluster-changed' });
    this.noteHead(answer.header.revision);
    const silentMs = this.options.clock.now() - this.lastDeliveryMs;
    if (this.endWatch !== undefined && this.head > position.revision && silentMs >= STALL_INTERVALS * intervalMs) this.endWatch({ kind: 'stalled' });
  }

  private take(position: Position, batch: WatchBatch, createdAt: Revision): void {
    const first = batch.events[0];
    if (first === undefined || first.kv.modRevision <= position.revision) return; // a revision already read
    const at = first.kv.modRevision;
    const interpreted = interpretRevision(position.interpreter, at, batch.events);
    const observedAtMs = this.options.wallClock.nowMs();
    // Live when it was committed after the watch began and is the newest revision the member had.
    const timeExact = at > createdAt && at === batch.header.revision;
    const records = interpreted.events.map((event): AuditRecord => ({ ...event, clusterId: position.clusterId, observedAtMs, timeExact }));
    this.lastDeliveryMs = this.options.clock.now();
    this.unwritten.addRecords(this.seams.keep(records));
    position.revision = at;
    position.interpreter = interpreted.state;
    const lastPut = [...batch.events].reverse().find((event) => event.type === 'put');
    if (lastPut !== undefined) position.probe = { key: lastPut.kv.key, modRevision: lastPut.kv.modRevision, version: lastPut.kv.version };
    this.noteHead(batch.header.revision);
    if (position.revision >= this.head) this.caughtUpAtMs = observedAtMs;
    if (this.unwritten.size >= (this.options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS)) void this.flushQuietly();
  }

  private noteHead(revision: Revision): void {
    if (revision > this.head) this.head = revision;
  }

  /** A flush whose failure is reported, not thrown: the events stay buffered for the next one. */
  private flushQuietly(): Promise<void> {
    return this.flush().catch((error: unknown) => this.options.onStoreError?.(error));
  }

  /** Writes what is buffered, with the checkpoint; one flush at a time, in order; then reports progress. */
  private async flush(): Promise<void> {
    const flushed = await this.unwritten.flush(() => {
      const position = this.position;
      if (position === undefined || !(this.options.mayWrite?.() ?? true)) return undefined;
      const probe = position.probe === undefined ? {} : { probe: position.probe };
      return { clusterId: position.clusterId, revision: position.revision, epoch: position.interpreter.epoch, updatedAtMs: this.options.wallClock.nowMs(), ...probe };
    });
    if (flushed === undefined) return;
    const { checkpoint } = flushed;
    if (checkpoint.revision >= this.head) this.caughtUpAtMs = checkpoint.updatedAtMs; // nothing known is unread
    this.eventsWritten += flushed.records;
    this.gapsRecorded += flushed.gaps;
    this.options.onProgress?.({
      clusterId: checkpoint.clusterId,
      checkpointRevision: checkpoint.revision,
      headRevision: this.head,
      lagRevisions: this.head > checkpoint.revision ? this.head - checkpoint.revision : 0n,
      eventsWritten: this.eventsWritten,
      gapsRecorded: this.gapsRecorded,
      behindMs: Math.max(0, checkpoint.updatedAtMs - this.caughtUpAtMs),
    });
  }

  private async flushEvery(intervalMs: number): Promise<void> {
    const { clock } = this.options;
    const signal = this.halt;
    while (!signal.aborted) {
      try {
        await clock.sleep(intervalMs, signal);
      } catch (error) {
        if (error instanceof CancelledError) return;
        throw error;
      }
      await this.flushQuietly();
      await this.watchdog(intervalMs);
    }
  }

  /** Backs off after the log failed, with jitter, up to RETRY_MAX_MS; false when stopped meanwhile. */
  private async pause(failures: number): Promise<boolean> {
    const baseMs = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(failures - 1, 4));
    try {
      await this.options.clock.sleep(jitteredMs(this.options.random, baseMs, 0.2), this.halt);
      return true;
    } catch (error) {
      if (error instanceof CancelledError) return false;
      throw error;
    }
  }
}
