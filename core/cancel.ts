// core/ has no AbortController (it compiles without DOM or node types), so it carries its own.
// CancelSignal is structurally a subset of AbortSignal, so src/ may pass a real AbortSignal in.
import { resumeStackTraces, suspendStackTraces } from './expected-error.js';

export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(message = 'cancelled') {
    // Control flow (a wait given up): no stack (expected-error.ts).
    const limit = suspendStackTraces();
    super(message);
    resumeStackTraces(limit);
  }
}

/** The owner side of a CancelSignal: call cancel() once; listeners run once, in registration order. */
export class CancelSource implements CancelSignal {
  private listeners: Array<() => void> = [];
  private cancelled = false;

  get aborted(): boolean {
    return this.cancelled;
  }

  get signal(): CancelSignal {
    return this;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.cancelled) {
      listener();
      return;
    }
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Runs `onCancel` when the signal fires; returns a function that detaches it. */
export function onCancel(signal: CancelSignal | undefined, handler: () => void): () => void {
  if (signal === undefined) return () => {};
  signal.addEventListener('abort', handler, { once: true });
  return () => signal.removeEventListener('abort', handler);
}
