// Test seams of the tailer (like core/arbiter/seams.ts): the honest default passes every record read on
// to the store. A mutant (scenarios/audit-mutants.ts) drops some, to show that the audit-complete checker
// catches an audit that loses events (ADR-21: complete by construction, expiries included).
import type { AuditRecord } from './events.js';

export interface TailerSeams {
  /** The records of one revision that go to the store. */
  keep(records: AuditRecord[]): AuditRecord[];
}

export const HONEST_TAILER_SEAMS: TailerSeams = {
  keep: (records) => records,
};
