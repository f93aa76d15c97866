// The messages between the kit and its first holder's process (node IPC, JSON): the kit starts it with
// what to do, it says when it stands at its pause point and waits for `go`, then how its write ended.
import type { LockClass } from '../../core/classes/index.js';
import type { WriteAnswer } from '../../core/pause-test/index.js';
import type { WriteSpec } from './guarded-write.js';

export interface HolderConfig {
  readonly endpoints: readonly string[];
  readonly lockClass: LockClass;
  readonly identity: string;
  readonly key: string;
  readonly point: string;
  readonly value: string;
  readonly write: WriteSpec;
  /** How long to wait in line for the key (the previous trial's holds may still be ending). */
  readonly waitMs: number;
}

export type ToHolder = { readonly type: 'start'; readonly config: HolderConfig } | { readonly type: 'go' };

export type FromHolder =
  /** Tokens as decimal strings (ADR-02). */
  | { readonly type: 'at'; readonly point: string; readonly token: string; readonly passed: readonly string[] }
  | { readonly type: 'done'; readonly write: WriteAnswer; readonly passed: readonly string[] }
  | { readonly type: 'failed'; readonly message: string };
