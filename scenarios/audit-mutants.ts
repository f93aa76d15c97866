// Mutant audit tailers (test support only, like mutants.ts for the core): each breaks one promise of ADR-21
// through the tailer's seam (core/audit/seams.ts), so a test can show that the audit-complete checker
// catches an audit that broke it.
import type { TailerSeams } from '../core/audit/seams.js';

/** Loses every expiry: the events ADR-21 exists for, which no application code sees. */
export const DROPS_EXPIRIES: TailerSeams = {
  keep: (records) => records.filter((record) => record.kind !== 'expiry'),
};
