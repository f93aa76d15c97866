// A member's watch streams (v3rpc/watch.go over the member's own WatchHub, design/etcd-behaviour.md 4.2,
// 4.3): a watch-create request opens a stream to the client; 'created' carries the store revision at
// creation; each delivery of the hub becomes one message (all events of one revision for a synced
// watcher, a catch-up batch of many revisions for an unsynced one); a watcher below the compaction point
// gets the compaction notice and ends. Messages are numbered per stream so the client can tell a lost
// one. The hub's sync loop (etcd syncWatchersLoop, 100 ms) runs on a fixed phase from the member's start,
// and only while some watcher is behind: an idle loop would change nothing but the event count.
import type { WatchDelivery } from '../etcd/watch-hub.js';
import type { TimerId } from '../process/process.js';
import type { MemberRuntime } from './member-runtime.js';
import { nextTickAt } from './member-leases.js';
import type { ClientRequest, WatchStreamEvent } from './protocol.js';

interface Stream {
  readonly client: string;
  readonly port: string;
  readonly streamId: number;
  watchId: number;
  seq: number;
}

export class WatchService {
  private readonly streams = new Map<string, Stream>();
  private syncTimer: TimerId = -1;

  constructor(private readonly runtime: MemberRuntime) {}

  get open(): number {
    return this.streams.size;
  }

  create(client: string, port: string, streamId: number, request: Extract<ClientRequest, { op: 'watch-create' }>): void {
    const { watch } = request;
    const stream: Stream = { client, port, streamId, watchId: -1, seq: 0 };
    this.streams.set(streamKey(client, port, streamId), stream);
    const options = {
      key: watch.key,
      ...(watch.prefix === true ? { prefix: true } : {}),
      ...(watch.startRevision !== undefined ? { startRevision: watch.startRevision } : {}),
      ...(watch.prevKv === true ? { prevKv: true } : {}),
    };
    // Deliveries made while the hub is inside this call cannot happen (watch() never delivers), so the
    // 'created' message is always the stream's first.
    const created = this.runtime.state.watches.watch(options, (delivery) => this.deliver(stream, delivery));
    stream.watchId = created.watchId;
    this.send(stream, { kind: 'created', header: this.runtime.header(created.revision), watchId: created.watchId });
    this.runtime.trace('etcd.watch.create', { client, key: watch.key, startRevision: watch.startRevision, watchId: created.watchId });
    this.armSync();
  }

  cancel(client: string, port: string, streamId: number): void {
    const key = streamKey(client, port, streamId);
    const stream = this.streams.get(key);
    if (stream === undefined) return;
    this.streams.delete(key);
    this.runtime.state.watches.cancel(stream.watchId);
  }

  /** The client's process died: its streams end (etcd sees the connection reset and cancels them). */
  dropClient(client: string): void {
    for (const [key, stream] of [...this.streams]) {
      if (stream.client !== client) continue;
      this.streams.delete(key);
      this.runtime.state.watches.cancel(stream.watchId);
    }
  }

  private deliver(stream: Stream, delivery: WatchDelivery): void {
    if (delivery.kind === 'compacted') {
      this.streams.delete(streamKey(stream.client, stream.port, stream.streamId));
      this.send(stream, { kind: 'compacted', compactRevision: delivery.compactRevision });
      return;
    }
    this.send(stream, { kind: 'events', header: this.runtime.header(delivery.revision), events: delivery.events });
  }

  private send(stream: Stream, event: WatchStreamEvent): void {
    this.runtime.member.mux.send(stream.client, { type: 'etcd.watch', port: stream.port, streamId: stream.streamId, seq: stream.seq++, event });
  }

  private armSync(): void {
    if (this.syncTimer >= 0 || this.runtime.state.watches.counts.unsynced === 0) return;
    const { process, timing } = this.runtime.member;
    const next = nextTickAt(this.runtime.startedLocalMs, process.localNow(), timing.watchSyncMs);
    this.syncTimer = process.setTimerAt(next, () => {
      this.syncTimer = -1;
      this.runtime.state.watches.sync();
      this.armSync();
    });
  }
}

function streamKey(client: string, port: string, streamId: number): string {
  return `${client}|${port}|${streamId}`;
}
