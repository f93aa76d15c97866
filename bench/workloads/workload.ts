// What every bench workload provides: the phases one operation records, the operation itself, and a
// close that gives back what setup took (leases, sessions, connections).
import type { Operation } from '../closed-loop.js';

export type WorkloadName = 'rawTxn' | 'grant' | 'service' | 'serviceTls' | 'peerLock' | 'keepalive';

export interface Workload {
  readonly name: WorkloadName;
  /** Phase names in the index order the operation records them; the last is the whole operation. */
  readonly phases: readonly string[];
  readonly operation: Operation;
  close(): Promise<void>;
}

/** Holder-sized value (~100 bytes of JSON), so the raw and peer writes carry what a grant writes. */
export function holderSizedValue(worker: number): string {
  return JSON.stringify({ identity: `spiffe://lockstep.bench/ns/bench/sa/worker-${worker}`, session: '7587869127451718000', class: 'bench-writes' });
}

/** Elapsed ms since `fromMs` (performance.now). */
export function since(fromMs: number): number {
  return performance.now() - fromMs;
}
