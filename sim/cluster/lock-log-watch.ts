// The client side of watch streams for SimLockLog (like src/etcd/watch-stream.ts): a watch-create call
// opens a stream on one member; the stream's 'created' message resolves watch(); event messages are split
// into one batch per revision (a catch-up response carries many); the compaction notice ends the watch
// with `compacted`; a lost or reordered message (a partition cut the stream), a connection reset or a
// failed keepalive ends it with `unavailable`. A handler that throws ends the watch with `internal`.
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { ResponseHeader, Watch, WatchBatch, WatchEvent, WatchHandlers, WatchRequest } from '../../core/ports/lock-log.js';
import type { Deferred } from '../kernel/kernel.js';
import type { TimerId } from '../process/process.js';
import type { WatchStreamMessage } from './protocol.js';

/** What the watch streams need from their SimLockLog. */
export interface WatchHost {
  /** Sends a watch-create on the chosen endpoint; returns [stream id, endpoint index], or an error if none can be reached. */
  open(request: WatchRequest): readonly [number, number] | LockLogError;
  cancelOnMember(endpoint: number, streamId: number): void;
  deferred<T>(): Deferred<T>;
  setTimer(delayMs: number, callback: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  readonly requestTimeoutMs: number;
  describe(endpoint: number): string;
  /** Called when the number of active watches on an endpoint changes (keepalive pings follow it). */
  activeChanged(endpoint: number): void;
}

interface Stream {
  readonly streamId: number;
  endpoint: number;
  description: string;
  readonly what: string;
  readonly handlers: WatchHandlers;
  phase: 'creating' | 'active' | 'ended';
  expectSeq: number;
  readonly created: Deferred<Watch>;
  timer: TimerId;
}

export class ClientWatches {
  private readonly streams = new Map<number, Stream>();

  constructor(private readonly host: WatchHost) {}

  /** Active watches on `endpoint`. */
  activeOn(endpoint: number): number {
    let count = 0;
    for (const stream of this.streams.values()) if (stream.endpoint === endpoint && stream.phase === 'active') count++;
    return count;
  }

  watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    const opened = this.host.open(request);
    if (opened instanceof LockLogError) return Promise.reject(opened);
    const [streamId, endpoint] = opened;
    const what = `watch of ${request.key}${request.prefix === true ? '*' : ''}`;
    const description = `${what} on ${this.host.describe(endpoint)}`;
    const stream: Stream = { streamId, endpoint, description, what, handlers, phase: 'creating', expectSeq: 0, created: this.host.deferred<Watch>(), timer: -1 };
    stream.timer = this.host.setTimer(this.host.requestTimeoutMs, () => {
      this.fail(stream, new LockLogError('timeout', `${description}: no "created" answer within ${this.host.requestTimeoutMs} ms`));
    });
    this.streams.set(streamId, stream);
    return stream.created.promise;
  }

  onMessage(message: WatchStreamMessage): void {
    const stream = this.streams.get(message.streamId);
    // A stream this client gave up on: its cancel is already on the way to the member.
    if (stream === undefined) return;
    if (message.seq !== stream.expectSeq) {
      return this.fail(stream, new LockLogError('unavailable', `${stream.description}: the stream lost messages (got #${message.seq}, expected #${stream.expectSeq}); watch again`));
    }
    stream.expectSeq++;
    const { event } = message;
    if (event.kind === 'created') {
      this.host.cancelTimer(stream.timer);
      stream.phase = 'active';
      this.host.activeChanged(stream.endpoint);
      stream.created.resolve({ header: event.header, cancel: () => this.cancel(stream) });
      return;
    }
    if (event.kind === 'compacted') {
      const error = new LockLogError('compacted', `${stream.description}: start revision is below the compaction at ${event.compactRevision}; watch again from ${event.compactRevision}`, {
        compactRevision: event.compactRevision,
      });
      return this.end(stream, error, false);
    }
    for (const batch of batchesPerRevision(event.header, event.events)) {
      if (stream.phase !== 'active') return; // cancel() from inside a handler stops delivery at once
      try {
        stream.handlers.onEvents(batch);
      } catch (error) {
        this.fail(stream, new LockLogError('internal', `${stream.description}: the onEvents handler threw, so the watch was ended: ${String(error)}`, { cause: error }));
      }
    }
  }

  isCreating(streamId: number): boolean {
    return this.streams.get(streamId)?.phase === 'creating';
  }

  /** The create was refused on one endpoint and goes to another. */
  retarget(streamId: number, endpoint: number, name: string): void {
    const stream = this.streams.get(streamId);
    if (stream === undefined || stream.phase !== 'creating') return;
    stream.endpoint = endpoint;
    stream.description = `${stream.what} on ${name}`;
  }

  /** The create could not be sent anywhere. */
  failCreating(streamId: number, why: string): void {
    const stream = this.streams.get(streamId);
    if (stream !== undefined && stream.phase === 'creating') this.end(stream, new LockLogError('unavailable', `${stream.description}: ${why}`), false);
  }

  /** The connection to `endpoint` is gone: every stream on it ends with `unavailable`. */
  connectionLost(endpoint: number, why: string): void {
    for (const stream of [...this.streams.values()]) {
      if (stream.endpoint === endpoint) this.end(stream, new LockLogError('unavailable', `${stream.description}: ${why}`), false);
    }
  }

  /** close(): every watch ends without an error. */
  cancelAll(): Promise<void> {
    for (const stream of [...this.streams.values()]) {
      if (stream.phase === 'creating') this.end(stream, new LockLogError('cancelled', `${stream.description}: the LockLog was closed`), true);
      else void this.cancel(stream);
    }
    return Promise.resolve();
  }

  private cancel(stream: Stream): Promise<void> {
    if (stream.phase !== 'ended') {
      this.remove(stream);
      this.host.cancelOnMember(stream.endpoint, stream.streamId);
    }
    return Promise.resolve();
  }

  private fail(stream: Stream, error: LockLogError): void {
    this.end(stream, error, true);
  }

  private end(stream: Stream, error: LockLogError, tellMember: boolean): void {
    if (stream.phase === 'ended') return;
    const wasCreating = stream.phase === 'creating';
    this.remove(stream);
    if (tellMember) this.host.cancelOnMember(stream.endpoint, stream.streamId);
    if (wasCreating) stream.created.reject(error);
    else stream.handlers.onError(error);
  }

  private remove(stream: Stream): void {
    const wasActive = stream.phase === 'active';
    stream.phase = 'ended';
    this.host.cancelTimer(stream.timer);
    this.streams.delete(stream.streamId);
    if (wasActive) this.host.activeChanged(stream.endpoint);
  }
}

/** Splits one response's events into one batch per revision, in order (as the real adapter does). */
export function batchesPerRevision(header: ResponseHeader, events: readonly WatchEvent[]): WatchBatch[] {
  const batches: WatchBatch[] = [];
  let current: WatchEvent[] = [];
  let currentRevision: bigint | undefined;
  for (const event of events) {
    if (currentRevision !== undefined && event.kv.modRevision !== currentRevision) {
      batches.push({ header, events: current });
      current = [];
    }
    currentRevision = event.kv.modRevision;
    current.push(event);
  }
  if (current.length > 0) batches.push({ header, events: current });
  return batches;
}
