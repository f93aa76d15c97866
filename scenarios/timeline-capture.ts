// What the run timeline (viz/timeline) needs from a scenario's trace, kept while the run goes: only the
// kinds it draws (pauses, crashes, partitions, disk stalls, clock steps, leader terms and elections,
// lease expiries and revokes, resource writes, session keepalives, fault and scenario notes), as plain
// JSON data, up to a named bound; beyond it records are counted as dropped, and the artifact and the
// view say so. It listens to the trace and never writes to it, so the trace hash is the same with and
// without it (a test checks).
import type { TraceListener, TraceRecord } from '../sim/trace/trace.js';
import type { World } from '../sim/world/world.js';

/** Put a limit on everything (STYLE.md): a 10-minute swarm keeps well under this. */
export const DEFAULT_MAX_TIMELINE_RECORDS = 250_000;

/** The rpc message type of a session keepalive (sim/net/network.ts messageType). */
export const KEEPALIVE_MESSAGE = 'arbiter.call:keepAlive';

/** The trace kinds the timeline draws, or reads for a detail. */
export const TIMELINE_KINDS: ReadonlySet<string> = new Set([
  'process.pause',
  'process.resume',
  'process.crash',
  'process.restart',
  'net.partition',
  'net.heal',
  'disk.stall',
  'clock.step',
  'clock.drift',
  'raft.become',
  'raft.campaign',
  'raft.elect',
  'raft.term',
  'etcd.leader',
  'etcd.start',
  'etcd.lease.expired',
  'etcd.lease.revoke',
  'etcd.lease.revoke-failed',
  'etcd.lease.revoke-skipped',
  'resource.write',
  'cluster.create',
  'fault',
]);

export type PlainValue = string | number | boolean | null | PlainValue[] | { [key: string]: PlainValue };

export interface TimelineRecord {
  readonly index: number;
  readonly timeMs: number;
  readonly process: string;
  readonly kind: string;
  readonly fields: Readonly<Record<string, PlainValue>>;
}

export type ProcessRoleName = 'client' | 'arbiter' | 'member' | 'resource';

export interface TimelineProcess {
  readonly name: string;
  readonly role: ProcessRoleName;
  /** A client's identity: grants and beliefs name holders by it. */
  readonly identity?: string;
}

/** The artifact's `timeline` (scenarios/runner.ts). */
export interface RunTimeline {
  readonly records: readonly TimelineRecord[];
  /** Records of the kinds above that came after the bound was reached. */
  readonly dropped: number;
  readonly maxRecords: number;
  readonly processes: readonly TimelineProcess[];
}

export function isTimelineRecord(record: TraceRecord): boolean {
  if (record.kind === 'net.send') return record.fields['type'] === KEEPALIVE_MESSAGE;
  return TIMELINE_KINDS.has(record.kind) || record.kind.startsWith('scenario.');
}

export class TimelineCapture {
  private readonly records: TimelineRecord[] = [];
  private dropped = 0;

  constructor(private readonly maxRecords = DEFAULT_MAX_TIMELINE_RECORDS) {
    if (!(Number.isInteger(maxRecords) && maxRecords >= 0)) throw new RangeError(`timeline capture: maxRecords must be a whole number ≥ 0, got ${maxRecords}`);
  }

  /** For the kernel's TraceOptions.listener. */
  readonly listener: TraceListener = (record) => {
    if (!isTimelineRecord(record)) return;
    if (this.records.length >= this.maxRecords) {
      this.dropped += 1;
      return;
    }
    this.records.push({ index: record.index, timeMs: record.timeMs, process: record.process, kind: record.kind, fields: plainFields(record.fields) });
  };

  /** The timeline of a finished run; `world` names the processes' roles (clients, arbiters, members, resources). */
  result(world: World): RunTimeline {
    return { records: this.records, dropped: this.dropped, maxRecords: this.maxRecords, processes: processesOf(world) };
  }
}

function processesOf(world: World): TimelineProcess[] {
  const out: TimelineProcess[] = [];
  const seen = new Set<string>();
  const add = (p: TimelineProcess): void => {
    if (seen.has(p.name)) return;
    seen.add(p.name);
    out.push(p);
  };
  for (const c of world.clients) add({ name: c.process.name, role: 'client', identity: c.identity });
  for (const a of world.arbiters) add({ name: a.process.name, role: 'arbiter' });
  for (const c of world.clusters) for (const m of c.cluster.members) add({ name: m.name, role: 'member' });
  for (const r of world.resources) add({ name: r.name, role: 'resource' });
  return out;
}

/** Deep copy as JSON data: bigints (lease ids, revisions) become decimal strings, like the rest of the artifact. */
export function plainFields(fields: Readonly<Record<string, unknown>>): Record<string, PlainValue> {
  const out: Record<string, PlainValue> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = plainValue(value, 0);
  return out;
}

/** Nesting deeper than this is written as text (trace fields are flat; this only bounds the walk). */
const MAX_DEPTH = 6;

function plainValue(value: unknown, depth: number): PlainValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString(10);
  if (depth >= MAX_DEPTH) return String(value);
  if (Array.isArray(value)) return value.map((v: unknown) => plainValue(v ?? null, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, PlainValue> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plainValue(v, depth + 1);
    return out;
  }
  return String(value);
}
