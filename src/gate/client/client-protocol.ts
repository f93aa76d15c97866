// The messages between `lockstep gate` and one of its client processes (node IPC, JSON; issue 15). Every
// operation is stamped on the gate's one monotonic clock: the client asks the gate to stamp the invoke
// and waits for the ack before it sends the operation, and the gate stamps the completion when it
// receives it, so the operation's real effect lies inside [invoke, completion] (docs/history-format.md).
import type { EventType } from '../../../core/checkers/history.js';

export type Resource = 'fenced' | 'unfenced';

export interface ClientConfig {
  /** The client's process name in the history: `client-1`. */
  readonly name: string;
  /** The identity it claims to the arbiters (plaintext on loopback: a lockstep-identity header, ADR-19). */
  readonly identity: string;
  /** host:port of every arbiter (their names for key affinity). */
  readonly arbiters: readonly string[];
  /** Where this client dials each arbiter: its own link proxy in front of it (the link mesh). */
  readonly dial: readonly string[];
  readonly className: string;
  readonly ttlSeconds: number;
  readonly keys: readonly string[];
  /** Seeds the client's own choices (key, work time). */
  readonly seed: string;
  readonly resource: Resource;
  /** Where the resource's records live: one directory (fenced: a FileRegister) or file (unfenced) per key. */
  readonly resourceDir: string;
  /** How long one acquire waits in line. */
  readonly waitMs: number;
  /** Work units per hold (each: canStart(), work, write), and the work's length range. */
  readonly unitsPerHold: number;
  readonly workMs: readonly [number, number];
}

/** What the operation was, as the history's `f`. */
export type GateOp = 'acquire' | 'release' | 'write';

export type ToClient = { readonly t: 'start'; readonly config: ClientConfig } | { readonly t: 'ack'; readonly id: number } | { readonly t: 'stop' };

export type FromClient =
  | { readonly t: 'invoke'; readonly id: number; readonly f: GateOp; readonly key: string; readonly value: unknown }
  | { readonly t: 'done'; readonly id: number; readonly type: Exclude<EventType, 'invoke'>; readonly value: unknown }
  /** The library fenced a hold (ADR-12 onFence); token as a decimal string. */
  | { readonly t: 'fence'; readonly key: string; readonly token: string; readonly reason: string }
  | { readonly t: 'stopped' }
  | { readonly t: 'failed'; readonly message: string };
