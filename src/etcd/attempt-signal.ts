// An attempt's "no longer wanted" flag, for a hedged call (EndpointSet.runHedged): set when another member
// answered first, or when the call settled. It replaces an AbortController per attempt: that cost a web
// EventTarget per call and, since every settled hedged call abandons all its attempts, a DOMException
// (with its stack) per keepalive and per read, which showed in serve's profile (issue 30). Only
// keepAliveOnce listens (to end its stream); reads and the rest only ever look at `aborted`.

/** What a call sees: whether it was abandoned, and one way to hear of it. */
export interface AttemptSignal {
  readonly aborted: boolean;
  /** Calls `listener` once when the attempt is abandoned (at once when it already was); the return removes it. */
  onAbort(listener: () => void): () => void;
}

export class AttemptAbandon implements AttemptSignal {
  private abandoned = false;
  private listeners: Array<() => void> | undefined;

  get aborted(): boolean {
    return this.abandoned;
  }

  onAbort(listener: () => void): () => void {
    if (this.abandoned) {
      listener();
      return () => undefined;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      this.listeners = this.listeners?.filter((l) => l !== listener);
    };
  }

  abort(): void {
    if (this.abandoned) return;
    this.abandoned = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }
}
