// Shared plumbing of the LockLog conformance suite: the target under test, unique key prefixes, bounded
// waits on the target's own clock (a virtual clock in the simulator), and small write/watch helpers.
import { expect } from 'vitest';
import type { LockLogError } from '../../../core/ports/lock-log-error.js';
import type { LockLog, ResponseHeader, Watch, WatchBatch, WatchRequest } from '../../../core/ports/lock-log.js';
import type { Clock } from '../../../core/ports/clock.js';
import { type LeaseId, type Revision, revision } from '../../../core/units.js';

export interface ConformanceTarget {
  /** The LockLog under test: one client of a throwaway cluster (the suite compacts its history). */
  readonly log: LockLog;
  /** The clock the suite waits on, e.g. for lease expiry; the simulator passes a virtual clock. */
  readonly clock: Clock;
  /** Optional: one LockLog per member, each talking to that member only, for the cross-member checks. */
  readonly memberLogs?: readonly LockLog[];
  close(): Promise<void>;
}

export interface SuiteContext {
  readonly target: () => ConformanceTarget;
  /** A key prefix no other test (and no earlier run against the same cluster) uses. */
  readonly prefix: (caseName: string) => string;
}

export const DEFAULT_WAIT_MS = 5_000;
const WAIT_STEP_MS = 25;

/** Polls `condition` every 25 ms of the target's clock until it holds; fails after `timeoutMs`. */
export async function waitUntil(clock: Clock, what: string, condition: () => boolean | Promise<boolean>, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
  const start = clock.now();
  while (!(await condition())) {
    if (clock.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await clock.sleep(WAIT_STEP_MS);
  }
}

/** Lets `ms` pass on the target's clock, for "nothing more happens" checks. */
export function settle(clock: Clock, ms = 200): Promise<void> {
  return clock.sleep(ms);
}

/** One put in its own txn; returns the revision it created. */
export async function put(log: LockLog, key: string, value: string, lease?: LeaseId): Promise<Revision> {
  const op = lease === undefined ? { type: 'put' as const, key, value } : { type: 'put' as const, key, value, lease };
  const response = await log.txn({ compare: [], success: [op], failure: [] });
  expect(response.succeeded).toBe(true);
  return response.header.revision;
}

export async function remove(log: LockLog, key: string, prefix = false): Promise<Revision> {
  const response = await log.txn({ compare: [], success: [{ type: 'delete', key, prefix }], failure: [] });
  return response.header.revision;
}

/** The cluster's current revision, from the header of a linearizable read. */
export async function currentRevision(log: LockLog, probeKey: string): Promise<Revision> {
  return (await log.range({ key: probeKey })).header.revision;
}

export const plus = (rev: Revision, n: number): Revision => revision(rev + BigInt(n));

export interface RecordedWatch {
  readonly watch: Watch;
  readonly batches: WatchBatch[];
  readonly errors: LockLogError[];
  /** Every event, flattened, as "put key=value@rev" / "delete key@rev", for readable assertions. */
  readonly lines: () => string[];
}

export function describeBatch(batch: WatchBatch): string[] {
  return batch.events.map((e) => (e.type === 'put' ? `put ${e.kv.key}=${e.kv.value}@${e.kv.modRevision}` : `delete ${e.kv.key}@${e.kv.modRevision}`));
}

export async function recordWatch(log: LockLog, request: WatchRequest): Promise<RecordedWatch> {
  const batches: WatchBatch[] = [];
  const errors: LockLogError[] = [];
  const watch = await log.watch(request, { onEvents: (batch) => batches.push(batch), onError: (error) => errors.push(error) });
  return { watch, batches, errors, lines: () => batches.flatMap(describeBatch) };
}

/** Strips a key prefix from event and kv keys, so expectations read as short names. */
export function shortKeys<T extends { key: string }>(prefix: string, items: readonly T[]): string[] {
  return items.map((item) => item.key.slice(prefix.length));
}

export function expectSameCluster(headers: readonly ResponseHeader[]): void {
  const first = headers[0];
  expect(first).toBeDefined();
  for (const header of headers) {
    expect(header.clusterId).toBe(first?.clusterId);
    expect(header.memberId).not.toBe(0n);
  }
  expect(first?.clusterId).not.toBe(0n);
}
