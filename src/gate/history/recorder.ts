// The gate's record of what its clients did (issue 15): every operation's invoke and completion stamped on
// the gate's one monotonic clock (the invoke before the client sends the operation, the completion when
// the gate hears of it), the resource's accepted and refused writes, and each library fence. Pure: the
// clock is passed in, so a test can build a history by hand.
import { type HistoryEvent } from '../../../core/checkers/history.js';
import type { FenceRecord, ResourceWrite } from '../../../core/checkers/run-history.js';
import { parseToken } from '../../../core/token.js';
import type { GateOp } from '../client/client-protocol.js';

/** The name of the gate's one resource (a FileRegister per key, or plain files when unfenced). */
export const RESOURCE = 'register';

interface Open {
  readonly f: GateOp;
  readonly key: string;
  readonly value: unknown;
  readonly atMs: number;
}

export class HistoryRecorder {
  readonly events: HistoryEvent[] = [];
  readonly writes: ResourceWrite[] = [];
  readonly fences: FenceRecord[] = [];
  private readonly open = new Map<string, Open>();
  /** process -> the hold it knows it has (an acquire answered ok, no release invoked yet, not fenced). */
  private readonly holds = new Map<string, { key: string; token: string }>();
  private readonly counts = { ok: 0, fail: 0, info: 0 };

  constructor(private readonly now: () => number) {}

  invoke(process: string, f: GateOp, key: string, value: unknown): void {
    if (this.open.has(process)) throw new Error(`${process} invoked ${f} while an operation of its own is open`);
    const atMs = this.now();
    this.open.set(process, { f, key, value, atMs });
    this.events.push({ process, type: 'invoke', f, key, value: value ?? null, time: atMs });
    if (f === 'release') this.holds.delete(process);
  }

  complete(process: string, type: 'ok' | 'fail' | 'info', value: unknown): void {
    const op = this.open.get(process);
    if (op === undefined) throw new Error(`${process} completed an operation it never invoked`);
    this.open.delete(process);
    const atMs = this.now();
    this.events.push({ process, type, f: op.f, key: op.key, value: value ?? null, time: atMs });
    this.counts[type] += 1;
    if (op.f === 'acquire' && type === 'ok') this.holds.set(process, { key: op.key, token: (value as { token: string }).token });
    if (op.f === 'write' && type !== 'info') {
      const token = parseToken((op.value as { token: string }).token);
      this.writes.push({ resource: RESOURCE, key: op.key, holder: process, token, atMs: op.atMs, endMs: atMs, accepted: type === 'ok' });
    }
  }

  fence(process: string, key: string, token: string): void {
    this.fences.push({ holder: process, key, token: parseToken(token), atMs: this.now() });
    const held = this.holds.get(process);
    if (held?.key === key && held.token === token) this.holds.delete(process);
  }

  /** Whether the process holds a lock as its workload knows it (the `@holder` role). */
  holding(process: string): boolean {
    return this.holds.has(process);
  }

  get operations(): { readonly ok: number; readonly fail: number; readonly info: number } {
    return { ...this.counts };
  }
}
