// Pairing events into operations, as Jepsen and Porcupine do: an operation runs from its invoke to its
// completion. An `info` completion, or an invoke still open when the history ends, means the outcome
// is unknown: the operation may have taken effect at any moment after its invoke, or never. Its return
// time is Infinity; it is kept, never dropped (STYLE.md, Porcupine).
import { type HistoryEvent, LOG_PROCESS } from './history.js';

export type Outcome = 'ok' | 'fail' | 'info';

export interface RawOperation {
  /** Position in the pairing's output, in the order of the invoke events. */
  readonly id: number;
  readonly process: string;
  readonly f: string;
  readonly key: string;
  /** The invoke's value. */
  readonly input: unknown;
  /** `info` also for an invoke with no completion at all. */
  readonly outcome: Outcome;
  /** The completion's value; `null` when there is no completion. */
  readonly output: unknown;
  readonly callTime: number;
  /** Infinity when the outcome is unknown. */
  readonly returnTime: number;
  /** Index of the invoke event in the history (the event itself for a log event). */
  readonly invokeEvent: number;
  /** Index of the completion event; undefined when the history ended first. */
  readonly completionEvent: number | undefined;
}

/** A history that cannot be read as operations; `event` is an index into the history. */
export interface HistoryProblem {
  readonly event: number;
  readonly message: string;
  /** Another event the message speaks of (the open invoke), so a reader can name its line. */
  readonly related?: { readonly event: number; readonly what: string };
}

export interface Pairing {
  readonly operations: RawOperation[];
  readonly problems: HistoryProblem[];
}

type Open = { readonly event: HistoryEvent; readonly index: number; readonly slot: number };

/** Pairs each process's invoke with its next completion. A process runs one operation at a time. */
export function pairOperations(events: readonly HistoryEvent[]): Pairing {
  const slots: (RawOperation | undefined)[] = [];
  const problems: HistoryProblem[] = [];
  const open = new Map<string, Open>();
  events.forEach((event, index) => {
    if (event.process === LOG_PROCESS) {
      if (event.type !== 'ok') {
        problems.push({ event: index, message: `a "${LOG_PROCESS}" event is instantaneous: give it as one line with "type": "ok" at the time the log applied it, not "${event.type}"` });
        return;
      }
      slots.push(operation(slots.length, event, index, event, index));
      return;
    }
    const pending = open.get(event.process);
    if (event.type === 'invoke') {
      if (pending !== undefined) {
        const message = `process ${event.process} invokes ${event.f} while its ${pending.event.f} has not completed; a process runs one operation at a time`;
        problems.push({ event: index, message, related: { event: pending.index, what: 'its open invoke' } });
        return;
      }
      open.set(event.process, { event, index, slot: slots.length });
      slots.push(undefined);
      return;
    }
    const problem = completionProblem(event, index, pending);
    if (problem !== undefined) {
      problems.push(problem);
      return;
    }
    const invoke = pending as Open;
    open.delete(event.process);
    slots[invoke.slot] = operation(invoke.slot, invoke.event, invoke.index, event, index);
  });
  for (const pending of open.values()) slots[pending.slot] = operation(pending.slot, pending.event, pending.index, undefined, undefined);
  return { operations: slots.filter((op): op is RawOperation => op !== undefined).map((op, id) => ({ ...op, id })), problems };
}

function completionProblem(event: HistoryEvent, index: number, pending: Open | undefined): HistoryProblem | undefined {
  if (pending === undefined) {
    return { event: index, message: `process ${event.process} completes ${event.f} ("${event.type}") without an open invoke; write the invoke line first` };
  }
  const invoked = pending.event;
  const related = { event: pending.index, what: 'the invoke' };
  if (invoked.f !== event.f || invoked.key !== event.key) {
    const message = `process ${event.process} completes ${event.f} on key ${JSON.stringify(event.key)}, but its open invoke is ${invoked.f} on key ${JSON.stringify(invoked.key)}`;
    return { event: index, message, related };
  }
  if (event.time < invoked.time) return { event: index, message: `the completion at time ${event.time} comes before its invoke at time ${invoked.time}`, related };
  return undefined;
}

function operation(id: number, invoke: HistoryEvent, invokeIndex: number, completion: HistoryEvent | undefined, completionIndex: number | undefined): RawOperation {
  const outcome: Outcome = completion === undefined || completion.type === 'invoke' ? 'info' : completion.type;
  return {
    id,
    process: invoke.process,
    f: invoke.f,
    key: invoke.key,
    input: invoke.value,
    outcome,
    output: completion?.value ?? null,
    callTime: invoke.time,
    returnTime: outcome === 'info' ? Number.POSITIVE_INFINITY : (completion as HistoryEvent).time,
    invokeEvent: invokeIndex,
    completionEvent: completionIndex,
  };
}
