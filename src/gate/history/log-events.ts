// The log's own record in the gate's history (issue 15): each hold the log ended without the client's
// release (an expiry, a lease the library revoked at its fence, an orphan released by the library's
// settler) becomes a `log` `expire` event of the lock model (docs/history-format.md).
//
// The time bound. An expire is instantaneous in the model, but the gate only knows when its watch
// delivered it (seenAtMs), which can be later than the first operation that could only follow it: the
// next grant of the key, answered to its client before the watch caught up (a member of the watch was
// paused, say). Stamped at receipt, the model would have the key still held when that grant completed:
// a legal history looks illegal (the lost first attempt's 5-minute runs failed just so, "an expiry of a
// hold while the model says an earlier token holds"). So each expire is stamped at the earliest of:
//   - the watch's receipt;
//   - the completion of every operation on the key naming a token above the expired one (the acquire
//     that was granted it, a write or release by it), since that token's grant followed the end;
//   - the completion of the expired token's own release answered `released: false` (it found the hold gone);
//   - the stamp of the next end of a hold on the key (ends come in revision order, and a later end's
//     hold was granted after this one ended).
// Each of these happened after the real end, so the stamp is never before it: the real end lies at or
// before the stamp, and everything that had to follow it completes at or after the stamp.
import type { HoldEndKind } from '../../../core/audit/events.js';
import { type HistoryEvent, LOG_PROCESS } from '../../../core/checkers/history.js';
import { parseToken } from '../../../core/token.js';

export interface LogEnd {
  readonly key: string;
  readonly token: bigint;
  readonly kind: HoldEndKind;
  /** The revision of the txn that ended the hold. */
  readonly revision: bigint;
  /** When the gate's watch delivered it, on the gate's clock. */
  readonly seenAtMs: number;
}

export interface BoundedEnd extends LogEnd {
  /** The model's instant of the end: no later than anything that could only follow it (header). */
  readonly atMs: number;
  /** False for a release the client's own history already shows: no log event. */
  readonly logEvent: boolean;
}

interface Op {
  readonly key: string;
  readonly f: string;
  readonly type: string;
  readonly tokens: readonly bigint[];
  readonly released: boolean | undefined;
  readonly completedAtMs: number | undefined;
}

function tokenIn(value: unknown): bigint | undefined {
  const token = (value as { token?: unknown } | null)?.token;
  return typeof token === 'string' ? parseToken(token) : undefined;
}

/** Client operations, invoke and completion paired per process (each process's lines are in its own order). */
function operationsOf(events: readonly HistoryEvent[]): Op[] {
  const open = new Map<string, HistoryEvent>();
  const ops: Op[] = [];
  const opOf = (invoke: HistoryEvent, completion: HistoryEvent | undefined): Op => {
    const tokens = [tokenIn(invoke.value), completion === undefined ? undefined : tokenIn(completion.value)].filter((t): t is bigint => t !== undefined);
    const released = completion === undefined ? undefined : (completion.value as { released?: unknown } | null)?.released;
    return { key: invoke.key, f: invoke.f, type: completion?.type ?? 'info', tokens, released: typeof released === 'boolean' ? released : undefined, completedAtMs: completion?.time };
  };
  for (const event of events) {
    if (event.process === LOG_PROCESS) continue;
    if (event.type === 'invoke') {
      open.set(event.process, event);
      continue;
    }
    const invoke = open.get(event.process);
    if (invoke === undefined) continue;
    open.delete(event.process);
    ops.push(opOf(invoke, event.type === 'info' ? undefined : event));
  }
  for (const invoke of open.values()) ops.push(opOf(invoke, undefined));
  return ops;
}

/** Whether the client's history shows a release of this hold that did or may have deleted it. */
function clientReleased(ops: readonly Op[], end: LogEnd): boolean {
  return ops.some((op) => op.f === 'release' && op.key === end.key && op.tokens.includes(end.token) && (op.type === 'info' || (op.type === 'ok' && op.released !== false)));
}

export function boundEnds(ends: readonly LogEnd[], clientEvents: readonly HistoryEvent[]): BoundedEnd[] {
  const ops = operationsOf(clientEvents);
  const byKey = new Map<string, LogEnd[]>();
  for (const end of ends) byKey.set(end.key, [...(byKey.get(end.key) ?? []), end]);
  const bounded = new Map<LogEnd, BoundedEnd>();
  for (const [key, keyEnds] of byKey) {
    const keyOps = ops.filter((op) => op.key === key && op.completedAtMs !== undefined);
    let later = Number.POSITIVE_INFINITY; // the bound of the next end on this key
    for (const end of [...keyEnds].sort((a, b) => (a.revision < b.revision ? 1 : a.revision > b.revision ? -1 : 0))) {
      let atMs = Math.min(end.seenAtMs, later);
      for (const op of keyOps) {
        const follows = op.tokens.some((t) => t > end.token) || (op.f === 'release' && op.released === false && op.tokens.includes(end.token));
        if (follows) atMs = Math.min(atMs, op.completedAtMs as number);
      }
      const logEvent = !(end.kind === 'release' && clientReleased(ops, end));
      bounded.set(end, { ...end, atMs, logEvent });
      later = atMs;
    }
  }
  return ends.map((end) => bounded.get(end) as BoundedEnd);
}

/** The lock model's `log` events for the bounded ends: `{"process":"log","type":"ok","f":"expire",...}`. */
export function expireEvents(ends: readonly BoundedEnd[]): HistoryEvent[] {
  return ends.filter((e) => e.logEvent).map((e) => ({ process: LOG_PROCESS, type: 'ok', f: 'expire', key: e.key, value: { token: e.token.toString() }, time: e.atMs }));
}
