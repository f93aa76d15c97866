// Lock classes (ADR-01, 04, 07, 11, 14, 17, 24): reading LockClass, PauseTestResult and LockGrant
// documents, checking them, and serving the valid classes. See docs/lock-classes.md.
export {
  ADVISORY_TTL_FLOOR_SECONDS,
  API_VERSION,
  PAUSE_TEST_VALID_DAYS,
  TTL_DEFAULT_SECONDS,
  TTL_MAX_SECONDS,
  TTL_MIN_SECONDS,
  type Enforcement,
  type Fairness,
  type LockClass,
  type LockGrant,
  type PauseTestResult,
  type Problem,
  type Purpose,
  type QuorumLossPosture,
  type SourcedDocument,
  type Tier,
} from './model.js';
export { DocumentSyntaxError, documentFromValue, isDocumentSyntaxError, parseDocuments } from './documents.js';
export { type CheckOptions, type CheckResult, checkDocuments } from './check.js';
export { ClassRegistry } from './registry.js';
export { formatCivilDate, isCivilDate, parseCivilDate } from './civil-date.js';
export { DOCUMENT_KINDS, type DocumentKind } from './schemas.js';
export { prefixNamespace } from './grant-rules.js';
export { type RegisterEntry, type RiskRegister, riskRegister, WAIVER_WARNING_DAYS, type WaiverStatus } from './risk-register.js';
