// The messages between `lockstep ttl --measure` and its holder processes (node IPC, JSON; issue 32).

export interface HolderConfig {
  readonly identity: string;
  /** The arbiter's address (its name) and where this holder dials it (its proxy). */
  readonly arbiter: string;
  readonly dial: string;
  readonly className: string;
  readonly ttlSeconds: number;
  readonly key: string;
}

export type ToHolder = { readonly t: 'start'; readonly config: HolderConfig };

export type FromHolder =
  /** The key is held (again, after a fence: the holder acquires anew). */
  | { readonly t: 'held' }
  /** The library fenced the hold (ADR-12): with no crash and no partition, a false fence. */
  | { readonly t: 'fenced'; readonly reason: string }
  | { readonly t: 'failed'; readonly message: string };
