// ReadIndex requests a leader is confirming with a heartbeat round (etcd raft/read_only.go,
// ReadOnlySafe): each request remembers the commit index at its arrival and the members that acked a
// heartbeat carrying its id; once a quorum acked, it and every request queued before it are answered.
import type { MemberId } from './types.js';

export interface ReadIndexRequest {
  /** Who asked: the leader itself or a follower that forwarded MsgReadIndex. */
  readonly from: MemberId;
  readonly requestId: string;
}

export interface ReadIndexStatus {
  readonly request: ReadIndexRequest;
  readonly index: number;
  readonly acks: Set<MemberId>;
}

export class ReadOnly {
  private readonly pending = new Map<string, ReadIndexStatus>();
  private queue: string[] = [];

  /** Registers a request at read index `index`; a repeated request id is ignored (etcd addRequest). */
  addRequest(index: number, request: ReadIndexRequest): void {
    if (this.pending.has(request.requestId)) return;
    this.pending.set(request.requestId, { request, index, acks: new Set() });
    this.queue.push(request.requestId);
  }

  /** Records `member`'s ack of the heartbeat carrying `requestId`; the ackers so far, or undefined. */
  recvAck(member: MemberId, requestId: string): ReadonlySet<MemberId> | undefined {
    const status = this.pending.get(requestId);
    if (status === undefined) return undefined;
    status.acks.add(member);
    return status.acks;
  }

  /** Removes and returns `requestId` and every request queued before it (they are confirmed too). */
  advance(requestId: string): ReadIndexStatus[] {
    const at = this.queue.indexOf(requestId);
    if (at < 0) return [];
    const confirmed = this.queue.slice(0, at + 1).map((id) => this.pending.get(id)!);
    this.queue = this.queue.slice(at + 1);
    for (const status of confirmed) this.pending.delete(status.request.requestId);
    return confirmed;
  }

  /** The newest pending request id: every heartbeat carries it (etcd lastPendingRequestCtx). */
  lastPendingRequestId(): string | null {
    return this.queue.length === 0 ? null : this.queue[this.queue.length - 1]!;
  }

  get size(): number {
    return this.queue.length;
  }
}
