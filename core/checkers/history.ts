// One line of a history file (ARCHITECTURE.md, "Contracts others build on"; docs/history-format.md):
// Jepsen-style events `{process, type, f, key, value, time}`. This file only says what a well-formed
// event is; pairing events into operations is in operations.ts, and what `f` and `value` mean is up
// to the model (lock-model.ts, kv-model.ts). Reading the file and JSON.parse live in src/.

export type EventType = 'invoke' | 'ok' | 'fail' | 'info';
export const EVENT_TYPES: readonly EventType[] = ['invoke', 'ok', 'fail', 'info'];

/**
 * The process name of the lock log itself. Its events (a lease expiry) are instantaneous: one `ok`
 * line each, at the time the log applied them, never an invoke/ok pair.
 */
export const LOG_PROCESS = 'log';

export interface HistoryEvent {
  /** Who acted: a client process, or `"log"`. A number in the file is read as its decimal string. */
  readonly process: string;
  readonly type: EventType;
  /** The function: `acquire`, `put`, ...; the model decides which it knows. */
  readonly f: string;
  /** The key the operation is on; histories are checked per key. A number is read as its string. */
  readonly key: string;
  /** Any JSON value; `null` when the line has none. */
  readonly value: unknown;
  /** True time in ms, or any monotonic counter: only the order of times matters. */
  readonly time: number;
}

export type EventReading = { readonly ok: true; readonly event: HistoryEvent } | { readonly ok: false; readonly problem: string };

/** Reads one parsed JSON value as an event; fields other than the six are ignored (Jepsen adds `index`, `node`). */
export function readHistoryEvent(value: unknown): EventReading {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return bad(`an event is a JSON object {"process", "type", "f", "key", "value", "time"}, not ${kindOf(value)}`);
  }
  const line = value as Record<string, unknown>;
  const process = nameField(line, 'process');
  if (typeof process !== 'string') return bad(process.problem);
  const type = line['type'];
  if (typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type)) {
    return bad(`"type" is ${show(type)}; it must be one of "invoke", "ok", "fail", "info"`);
  }
  const f = line['f'];
  if (typeof f !== 'string' || f.length === 0) return bad(`"f" is ${show(f)}; give the operation's function as a string, e.g. "acquire"`);
  const key = nameField(line, 'key');
  if (typeof key !== 'string') return bad(key.problem);
  const time = line['time'];
  if (typeof time !== 'number' || !Number.isFinite(time)) {
    return bad(`"time" is ${show(time)}; give a number (ms of true time, or a monotonic counter)`);
  }
  const event: HistoryEvent = { process, type: type as EventType, f, key, value: line['value'] ?? null, time };
  return { ok: true, event };
}

function nameField(line: Record<string, unknown>, field: 'process' | 'key'): string | { problem: string } {
  const value = line[field];
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return { problem: `"${field}" is ${show(value)}; give a non-empty string (or an integer)` };
}

function bad(problem: string): EventReading {
  return { ok: false, problem };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A short, safe rendering of a value for a message. */
export function show(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
