// Every checker over one simulated run (ARCHITECTURE.md, scenarios/): exclusion and token order always,
// belief when the run recorded beliefs, fence when it recorded writes, deadline when it recorded the
// holders' fences, linearizability when it recorded the client-visible history, audit-complete when it ran
// the audit tailer (ADR-21), and the liveness checkers when it recorded the workload's interests (issue 11).
import { checkAuditComplete } from './audit-complete.js';
import { checkBelief } from './belief.js';
import type { CheckResult } from './check-result.js';
import { checkHistory } from './check-history.js';
import { checkDeadline } from './deadline.js';
import { checkExclusion } from './exclusion.js';
import { checkFalseFence } from './false-fence.js';
import { checkFreeKeyWait } from './free-key-wait.js';
import { checkHoldOutlivesInterest } from './hold-outlives-interest.js';
import { checkInDoubtResolved } from './in-doubt-resolved.js';
import { checkFence } from './fence.js';
import type { LinearizabilityOptions } from './linearizability.js';
import { linearizabilityCheckResult } from './linearizability-report.js';
import { lockModel } from './lock-model.js';
import type { ResourceKind } from './lock-rules.js';
import type { LivenessRun, RunHistory } from './run-history.js';
import { checkTokenOrder } from './token-order.js';

export interface CheckRunOptions extends LinearizabilityOptions {
  /** The resource behind the lock model's writes in `events`; default fenced. */
  readonly resource?: ResourceKind;
}

export function checkRun(history: RunHistory, options: CheckRunOptions = {}): CheckResult[] {
  const results = [checkExclusion(history.grants), checkTokenOrder(history.grants)];
  if (history.beliefs !== undefined) results.push(checkBelief(history.grants, history.beliefs));
  if (history.writes !== undefined) results.push(checkFence(history.writes, history.resources ?? []));
  if (history.fences !== undefined) results.push(checkDeadline(history.grants, history.fences, history.outages));
  if (history.events !== undefined) {
    const model = lockModel(options.resource === undefined ? {} : { resource: options.resource });
    const checked = checkHistory(model, history.events, options);
    if (checked.kind === 'bad-input') {
      // The scenario wrote the history; a malformed one is a bug in the recorder, not a finding.
      const first = checked.problems[0];
      throw new Error(`run history: the recorded events are malformed: event ${(first?.event ?? 0) + 1}: ${first?.message} (${checked.problems.length} problems)`);
    }
    results.push(linearizabilityCheckResult(model, checked.result));
  }
  if (history.audit !== undefined) results.push(checkAuditComplete(history.grants, history.audit));
  if (history.liveness !== undefined) results.push(...checkLiveness(history, history.liveness));
  return results;
}

/** The liveness checkers (issue 11): waits on free keys, doubts left open, holds nobody wants, false fences. */
function checkLiveness(history: RunHistory, run: LivenessRun): CheckResult[] {
  const outages = history.outages ?? [];
  return [
    checkFreeKeyWait(history.grants, run, outages),
    checkInDoubtResolved(history.grants, run, outages),
    checkHoldOutlivesInterest(history.grants, run, outages),
    ...(history.fences === undefined ? [] : [checkFalseFence(history.grants, history.fences, run, outages)]),
  ];
}
