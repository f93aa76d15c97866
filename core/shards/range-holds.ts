// Whether an entity log still holds anything in a homing unit (ADR-09's "wait for holds to end"): the
// holder keys of the unit itself and of every key under it, read with one linearizable read each. The
// move procedure's `holdsIn` port, on the source shard's log (shard-move.ts).
import { HOLDER_PREFIX } from '../lock-key.js';
import type { LockLog } from '../ports/lock-log.js';

export async function holdsInRange(log: LockLog, range: string): Promise<'none' | 'held' | 'unknown'> {
  try {
    const exact = await log.range({ key: `${HOLDER_PREFIX}${range}`, limit: 1 });
    if (exact.kvs.length > 0) return 'held';
    // A '/' after the unit: `orders/c-1` must not count `orders/c-10`, another unit.
    const under = await log.range({ key: `${HOLDER_PREFIX}${range}/`, prefix: true, limit: 1 });
    return under.kvs.length > 0 ? 'held' : 'none';
  } catch {
    return 'unknown'; // the procedure polls again until its drain window ends
  }
}
