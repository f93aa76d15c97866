// ADR-04 in the simulated world: what an arbiter process fails open with. Its spool is a file on the
// process's own disk, made once so that it outlives restarts (sim/disk/sim-spool.ts); each incarnation
// is a new run of the arbiter, so its spool ids differ from the last one's; the records are stamped on the
// simulated calendar (audit-node.ts); the store is the world's, as the audit database outlives arbiters.
import type { UnprotectedOptions } from '../../core/arbiter/fail-open.js';
import type { UnprotectedStore } from '../../core/ports/spool.js';
import { SimSpool } from '../disk/sim-spool.js';
import type { SimProcess } from '../process/process.js';
import { SIM_CALENDAR_ORIGIN_MS } from './audit-node.js';

export interface WorldUnprotected {
  /** Where every arbiter ships its spool once the quorum is back. */
  readonly store: UnprotectedStore;
}

/** The arbiter process's spool (SimSpool), and the options each of its incarnations is built with. */
export function unprotectedArbiter(process: SimProcess, world: WorldUnprotected): { readonly spool: SimSpool; readonly options: () => UnprotectedOptions } {
  const spool = new SimSpool(process);
  const wallClock = { nowMs: () => SIM_CALENDAR_ORIGIN_MS + process.kernel.now() };
  return { spool, options: () => ({ spool, store: world.store, arbiterId: process.name, incarnation: String(process.incarnation), wallClock }) };
}
