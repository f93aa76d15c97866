// Building small histories by hand in the checker tests: one call per operation, then `history()`
// puts the events in time order as a recorder would.
import type { EventType, HistoryEvent } from './history.js';
import { LOG_PROCESS } from './history.js';

/** Token of epoch 1 at revision `revision` (ADR-02), as the wire writes it. */
export function tok(revision: number): string {
  return String((1n << 48n) + BigInt(revision));
}

export function tokenOf(revision: number): bigint {
  return (1n << 48n) + BigInt(revision);
}

/** One operation: its invoke at `from` and, unless `outcome` is 'pending', its completion at `to`. */
export function call(
  process: string,
  f: string,
  input: unknown,
  [from, to]: readonly [number, number],
  outcome: Exclude<EventType, 'invoke'> | 'pending',
  output: unknown = null,
  key = 'k',
): HistoryEvent[] {
  const invoke: HistoryEvent = { process, type: 'invoke', f, key, value: input, time: from };
  if (outcome === 'pending') return [invoke];
  return [invoke, { process, type: outcome, f, key, value: output, time: to }];
}

export const lockOps = {
  acquire: (process: string, revision: number, at: readonly [number, number], key = 'k') => call(process, 'acquire', null, at, 'ok', { token: tok(revision) }, key),
  reacquire: (process: string, revision: number, at: readonly [number, number], key = 'k') => call(process, 'acquire', null, at, 'ok', { token: tok(revision), reentered: true }, key),
  contended: (process: string, at: readonly [number, number], key = 'k') => call(process, 'acquire', null, at, 'fail', { error: 'contended' }, key),
  acquireUnknown: (process: string, at: readonly [number, number], key = 'k') => call(process, 'acquire', null, at, 'info', null, key),
  release: (process: string, revision: number, at: readonly [number, number], released = true, key = 'k') => call(process, 'release', { token: tok(revision) }, at, 'ok', { released }, key),
  write: (process: string, revision: number, at: readonly [number, number], outcome: 'ok' | 'fail' | 'info' = 'ok', key = 'k') => call(process, 'write', { token: tok(revision) }, at, outcome, null, key),
  expire: (revision: number, time: number, key = 'k'): HistoryEvent[] => [{ process: LOG_PROCESS, type: 'ok', f: 'expire', key, value: { token: tok(revision) }, time }],
};

export const kvOps = {
  put: (process: string, value: unknown, at: readonly [number, number], outcome: 'ok' | 'fail' | 'info' = 'ok', key = 'k') => call(process, 'put', value, at, outcome, null, key),
  get: (process: string, value: unknown, at: readonly [number, number], key = 'k') => call(process, 'get', null, at, 'ok', value, key),
  del: (process: string, at: readonly [number, number], key = 'k') => call(process, 'delete', null, at, 'ok', null, key),
  cas: (process: string, from: unknown, to: unknown, at: readonly [number, number], outcome: 'ok' | 'fail' | 'info' = 'ok', key = 'k') => call(process, 'cas', { from, to }, at, outcome, null, key),
};

/** The events of all operations in time order (stable, so an operation's invoke stays before its completion). */
export function history(...operations: readonly HistoryEvent[][]): HistoryEvent[] {
  return operations.flat().sort((a, b) => a.time - b.time);
}
