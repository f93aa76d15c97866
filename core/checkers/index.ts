// Checkers (ADR-23; ARCHITECTURE.md, scenarios/): the direct checks over a simulated run (exclusion,
// token order, belief, fence, deadline) and a Porcupine-style linearizability checker with a lock model and a
// KV model. All pure. The history format: docs/history-format.md.
export { EVENT_TYPES, type EventReading, type EventType, type HistoryEvent, LOG_PROCESS, readHistoryEvent } from './history.js';
export { type HistoryProblem, type Outcome, type Pairing, type RawOperation, pairOperations } from './operations.js';
export { type DecodeProblem, type Decoded, type Model, type Operation, decodeOperations } from './model.js';
export { type LockModel, type LockModelOptions, type LockOperation, lockModel } from './lock-model.js';
export { type Holder, type LockFunction, type LockInput, type LockOutput, type LockState, type ResourceKind } from './lock-rules.js';
export { type KvFunction, type KvInput, type KvOperation, type KvOutput, type KvState, canonicalJson, kvModel } from './kv-model.js';
export {
  type BlockedOperation,
  DEFAULT_STEPS_PER_KEY,
  type KeyResult,
  type LinearizabilityOptions,
  type LinearizabilityResult,
  type LinearizationFailure,
  type Verdict,
  checkLinearizability,
  partitionByKey,
} from './linearizability.js';
export { type Describer, type Locate, PREFIX_SHOWN, explainKey, linearizabilityCheckResult, locateByEvent } from './linearizability-report.js';
export { type HistoryCheck, checkHistory } from './check-history.js';
export { type CheckResult, type CheckerName, type Involved, MAX_VIOLATIONS, type Violation, type ViolationKind } from './check-result.js';
export {
  type AuditRun,
  type AuditedCluster,
  type BeliefInterval,
  type Disturbance,
  type Interest,
  type LivenessBounds,
  type LivenessRun,
  type FenceRecord,
  type GrantRecord,
  type HoldEndReason,
  type HolderOutage,
  type ResourceSpec,
  type ResourceWrite,
  type RunHistory,
} from './run-history.js';
export { checkExclusion } from './exclusion.js';
export { checkTokenOrder } from './token-order.js';
export { checkBelief } from './belief.js';
export { checkFence } from './fence.js';
export { checkDeadline } from './deadline.js';
export { checkAuditComplete } from './audit-complete.js';
export { checkFreeKeyWait } from './free-key-wait.js';
export { checkInDoubtResolved } from './in-doubt-resolved.js';
export { checkHoldOutlivesInterest } from './hold-outlives-interest.js';
export { checkFalseFence } from './false-fence.js';
export { type CheckRunOptions, checkRun } from './check-run.js';
export { type UnprotectedRun, checkUnprotected, isUnprotected } from './unprotected.js';
export { type SyntheticHold, type SyntheticLockHistory, type SyntheticLockHistoryOptions, syntheticLockHistory } from './synthetic-history.js';
