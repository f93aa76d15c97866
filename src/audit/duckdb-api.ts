// Everything of the audit that loads DuckDB's native module, behind one import: the audit commands load it
// only when they run, so that every other lockstep command starts without it.
export { AuditDbError, prepareAuditDb, withAuditDb } from './duckdb-file.js';
export { DuckDbAuditStore } from './duckdb-store.js';
export { exportParquet } from './export.js';
export { heldAt, holdsOf, reportOf } from './queries.js';
export { runTailService } from './tail-service.js';
export { overlapsOf } from './class-overlaps.js';
export { DuckDbUnprotectedStore, unprotectedGrantsIn } from './unprotected-store.js';
