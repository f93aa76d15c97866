// Marks from the run's captured trace records (scenarios/timeline-capture.ts keeps only these kinds):
// spans are opened by one record and closed by another of the same process (a pause by its resume, a
// crash by its restart, a leader's term by its next role change); whatever is still open when the run
// ends is closed at the run's end.
import type { TraceRecordView } from '../artifact/schema.js';
import type { MarkKind } from './dom-contract.js';
import { WORLD_LANE } from './lanes.js';
import { type MarkDraft, NO_VIOLATIONS } from './types.js';

/** The rpc message type of a session keepalive (sim/net/network.ts labels rpc messages kind:method). */
export const KEEPALIVE_MESSAGE = 'arbiter.call:keepAlive';

interface Open {
  readonly record: TraceRecordView;
  readonly kind: MarkKind;
  readonly label: string;
}

export function traceMarks(records: readonly TraceRecordView[], runEndMs: number): MarkDraft[] {
  const builder = new SpanBuilder();
  for (const record of records) builder.add(record);
  return builder.finish(runEndMs);
}

class SpanBuilder {
  readonly marks: MarkDraft[] = [];
  /** Open spans by `${kind}\u0000${process}` (or partition id). */
  private readonly open = new Map<string, Open>();
  /** A world partition is recorded once per network (etcd, lock.v1, resources), with the same id on each: heal them in order. */
  private readonly partitions = new Map<number, TraceRecordView[]>();
  private readonly seenPartitions = new Set<string>();

  add(r: TraceRecordView): void {
    const f = r.fields;
    switch (r.kind) {
      case 'process.pause':
        return this.begin(r, 'pause', 'paused');
      case 'process.resume':
        return this.end('pause', r.process, r.timeMs, r);
      case 'process.crash':
        this.end('pause', r.process, r.timeMs, r);
        this.end('leader', r.process, r.timeMs, r);
        this.end('election', r.process, r.timeMs, r);
        return this.begin(r, 'crash', f['powerLoss'] === true ? 'crashed (power loss)' : 'crashed');
      case 'process.restart':
        return this.end('crash', r.process, r.timeMs, r);
      case 'raft.campaign':
        this.end('election', r.process, r.timeMs, r);
        return this.begin(r, 'election', `${String(f['kind'] ?? 'election')} for term ${String(f['term'] ?? '?')}`);
      case 'raft.become':
        return this.roleChange(r);
      case 'net.partition':
        return this.partition(r);
      case 'net.heal':
        return this.heal(r);
      case 'disk.stall': {
        const untilMs = typeof f['untilMs'] === 'number' ? f['untilMs'] : r.timeMs;
        return this.push('stall', r.process, r.timeMs, untilMs, 'disk stalled', r);
      }
      case 'etcd.lease.expired':
        return this.push('expiry', r.process, r.timeMs, r.timeMs, 'lease expired', r);
      case 'clock.step':
        return this.push('clock', r.process, r.timeMs, r.timeMs, `clock ${signed(f['deltaMs'])} ms`, r);
      case 'clock.drift':
        return this.push('clock', r.process, r.timeMs, r.timeMs, `drift ${signed(f['driftPpm'])} ppm`, r);
      case 'net.send':
        if (f['type'] === KEEPALIVE_MESSAGE) this.push('keepalive', r.process, r.timeMs, r.timeMs, 'keepalive', r);
        return;
      case 'fault':
        return this.push('note', WORLD_LANE, r.timeMs, r.timeMs, String(f['description'] ?? f['kind'] ?? 'fault'), r);
      default:
        if (r.kind.startsWith('scenario.')) this.push('note', WORLD_LANE, r.timeMs, r.timeMs, r.kind.slice('scenario.'.length), r);
    }
  }

  finish(runEndMs: number): MarkDraft[] {
    for (const [key, open] of [...this.open]) {
      this.open.delete(key);
      this.close(open, runEndMs, undefined);
    }
    for (const [, pending] of this.partitions) for (const record of pending) this.partitionMarks(record, runEndMs, undefined);
    this.partitions.clear();
    return this.marks;
  }

  private roleChange(r: TraceRecordView): void {
    const role = r.fields['role'];
    if (role === 'leader') {
      this.end('election', r.process, r.timeMs, r);
      this.end('leader', r.process, r.timeMs, r);
      this.begin(r, 'leader', `leader, term ${String(r.fields['term'] ?? '?')}`);
      return;
    }
    this.end('leader', r.process, r.timeMs, r);
    if (role === 'follower') this.end('election', r.process, r.timeMs, r);
  }

  private partition(r: TraceRecordView): void {
    const id = Number(r.fields['id']);
    const pending = this.partitions.get(id) ?? [];
    pending.push(r);
    this.partitions.set(id, pending);
  }

  private heal(r: TraceRecordView): void {
    const id = Number(r.fields['id']);
    const opened = this.partitions.get(id)?.shift();
    if (opened !== undefined) this.partitionMarks(opened, r.timeMs, r);
  }

  /** One mark per process cut off (the `from` side), and one on the world lane; the same cut on three networks is drawn once. */
  private partitionMarks(opened: TraceRecordView, endMs: number, closedBy: TraceRecordView | undefined): void {
    const from = names(opened.fields['from']);
    const to = names(opened.fields['to']);
    const identity = JSON.stringify([from, to, opened.fields['direction'], opened.timeMs, endMs]);
    if (this.seenPartitions.has(identity)) return;
    this.seenPartitions.add(identity);
    const label = `${from.join(', ')} ${opened.fields['direction'] === 'one-way' ? '→✕' : '✕'} ${to.length > 3 ? `${to.length} processes` : to.join(', ')}`;
    const details = { ...opened.fields, from: from.join(', '), to: to.join(', '), healedAtMs: closedBy === undefined ? null : closedBy.timeMs, record: opened.index };
    for (const lane of [WORLD_LANE, ...from]) this.marks.push({ id: 0, violations: NO_VIOLATIONS, kind: 'partition', lane, startMs: opened.timeMs, endMs, label, details });
  }

  private begin(r: TraceRecordView, kind: MarkKind, label: string): void {
    this.open.set(`${kind}\u0000${r.process}`, { record: r, kind, label });
  }

  private end(kind: MarkKind, process: string, atMs: number, closedBy: TraceRecordView): void {
    const key = `${kind}\u0000${process}`;
    const open = this.open.get(key);
    if (open === undefined) return;
    this.open.delete(key);
    this.close(open, atMs, closedBy);
  }

  private close(open: Open, endMs: number, closedBy: TraceRecordView | undefined): void {
    const details = { ...open.record.fields, record: open.record.index, endedBy: closedBy === undefined ? 'the end of the run' : closedBy.kind };
    this.marks.push({ id: 0, violations: NO_VIOLATIONS, kind: open.kind, lane: open.record.process, startMs: open.record.timeMs, endMs, label: open.label, details });
  }

  private push(kind: MarkKind, lane: string, startMs: number, endMs: number, label: string, r: TraceRecordView): void {
    // The record's fields as they are: a long run has a million of these, and a copy each would cost seconds.
    this.marks.push({ id: 0, violations: NO_VIOLATIONS, kind, lane, startMs, endMs: Math.max(startMs, endMs), label, details: r.fields, record: r.index, traceKind: r.kind });
  }
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
}

function signed(value: unknown): string {
  return typeof value === 'number' ? (value >= 0 ? `+${value}` : String(value)) : '?';
}
