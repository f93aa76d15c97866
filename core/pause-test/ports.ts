// The pause test kit's ports (ADR-17). The kit (procedure.ts) is one procedure in core, run on real
// processes from src/ (src/pause-test/) and in the simulator from scenarios/pause-test.ts. It sees the
// world only through these: a lock client for the second holder, which lives in the kit's own process;
// a control for the first holder, which lives in a process of its own that the kit can freeze whole;
// and the resource, for the second holder's write and for reading the record back.
import type { AcquireOptions } from '../client/lock-client.js';
import type { FencingToken } from '../units.js';

/** A named place inside a guarded write where the first holder can be frozen. */
export type PausePoint = string;

/** Every write has these two: after the holder checked canStart() and before its first statement, and after its last. */
export const BEFORE_WRITE: PausePoint = 'before';
export const AFTER_WRITE: PausePoint = 'after';

/** What a writer was told. `failed`: an error, so the write's fate is unknown to the writer. */
export interface WriteAnswer {
  readonly answer: 'accepted' | 'refused' | 'failed';
  /** A few words for the report: `1 row updated`, `exit code 3`, the error. */
  readonly detail?: string;
}

/** The record as the resource holds it, read from the resource itself (never from a writer's answer). */
export interface ResourceState {
  /** The value of the last write the record took; undefined when it holds none. */
  readonly value: string | undefined;
  /** What else the resource shows, for the report: `fence 281474976710662`. */
  readonly detail?: string;
}

export interface PauseTestResource {
  /** The guarded write, by the second holder, from the kit's own process. */
  write(token: FencingToken, value: string): Promise<WriteAnswer>;
  read(): Promise<ResourceState>;
}

export interface FirstHolderStarted {
  readonly token: FencingToken;
  /** The pause points its write passed on the way to the one it stands at, in order. */
  readonly passed: readonly PausePoint[];
}

export interface FirstHolderOutcome {
  readonly write: WriteAnswer;
  /** The pause points its write passed after the one it stood at, in order: AFTER_WRITE last when it ran to its end. */
  readonly passed: readonly PausePoint[];
}

/**
 * The first holder, in a process of its own. One trial at a time: startAt, freeze, resume, finish (or
 * stop, at any time, after a failure).
 */
export interface FirstHolderControl {
  /**
   * Starts a first holder: it acquires the key, asks canStart() (ADR-12) and runs its guarded write of
   * `value`; resolves once it stands at `point`, waiting there. Rejects when it cannot get there (its
   * write ended without passing `point`, it could not acquire, its process died).
   */
  startAt(point: PausePoint, value: string): Promise<FirstHolderStarted>;
  /** Resolves once the whole process is frozen (library, keepalives and write together, as a GC pause or SIGSTOP). */
  freeze(): Promise<void>;
  /** Resolves once it runs again; it carries on with its write from the pause point. */
  resume(): Promise<void>;
  /** Resolves when its write has ended. */
  finish(): Promise<FirstHolderOutcome>;
  stop(): Promise<void>;
}

/** The second holder's lock: core's LockClient fits (its LockHandle has both). */
export interface PauseTestLock {
  acquire(options: AcquireOptions): Promise<{ readonly token: FencingToken; release(): Promise<unknown> }>;
}
