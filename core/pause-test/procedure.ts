// The pause test kit (ADR-17): "acquire a lock, write, freeze the holder with SIGSTOP past its TTL, let
// a second holder acquire and write, resume the first and assert its write is rejected", repeated at
// every pause point of the write. ADR-17's classic mistake, a check in one statement and the write in
// another, shows only when the pause falls between them, so one trial per point: first `before` (the
// holder checked canStart() and then stalled: the textbook stale write), then each point a trial's write
// passed that no trial has stood at yet. A refused write may take a shorter path than an accepted one
// (a check that fails skips the statements after it), so the points are gathered from every trial.
//
// A pass needs every trial to pass and at least one trial in which the stale write met the resource
// after the second holder's (any point but `after`): "declare a safety property only after you have
// watched it refuse something". The same procedure runs on real processes (src/pause-test/) and in
// the simulator (scenarios/pause-test.ts).
import type { Clock } from '../ports/clock.js';
import { AFTER_WRITE, BEFORE_WRITE, type FirstHolderControl, type PausePoint, type PauseTestLock, type PauseTestResource } from './ports.js';
import { type TrialLimits, type TrialReport, runTrial } from './trial.js';

export interface PauseTestPorts {
  readonly clock: Clock;
  readonly lock: PauseTestLock;
  readonly firstHolder: FirstHolderControl;
  readonly resource: PauseTestResource;
}

export interface PauseTestPlan {
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
  /** Makes this run's values unique on the record (from the Random port), so a value read back names its writer. */
  readonly runId: string;
  /** The points to test, in order; default `before` and then every point the first trial's write passed. */
  readonly points?: readonly PausePoint[];
  readonly limits?: Partial<TrialLimits>;
}

export interface PauseTestStep {
  /** Since the kit started, on its clock. */
  readonly atMs: number;
  /** The trial it belongs to, from 1; absent for the run's own lines. */
  readonly trial?: number;
  readonly text: string;
}

export interface PauseTestReport {
  readonly passed: boolean;
  /** Why, in a sentence: what a pass rests on, or the first trial that did not pass. */
  readonly summary: string;
  readonly trials: readonly TrialReport[];
  readonly durationMs: number;
}

/** Bounds for a class of `ttlSeconds`: the second holder waits out the TTL, the etcd expiry scan and a leader change (ADR-11, ADR-12). */
export function defaultLimits(ttlSeconds: number): TrialLimits {
  return { startMs: 60_000, grantMs: 3 * ttlSeconds * 1000 + 15_000, blockedWriteMs: 15_000, stepMs: 30_000 };
}

export async function runPauseTest(ports: PauseTestPorts, plan: PauseTestPlan, onStep: (step: PauseTestStep) => void): Promise<PauseTestReport> {
  const startMs = ports.clock.now();
  const limits = { ...defaultLimits(plan.ttlSeconds), ...plan.limits };
  const say = (trial: number | undefined) => (text: string) => onStep({ atMs: Math.round(ports.clock.now() - startMs), ...(trial === undefined ? {} : { trial }), text });
  const queue: PausePoint[] = [...(plan.points ?? [BEFORE_WRITE])];
  const trials: TrialReport[] = [];
  say(undefined)(`pause test of ${plan.key} (class ${plan.className}, TTL ${plan.ttlSeconds} s): ${plan.points === undefined ? 'pause points: before, then each the write passes' : `pause points: ${plan.points.join(', ')}`}`);
  for (let point = queue.shift(); point !== undefined; point = queue.shift()) {
    const number = trials.length + 1;
    const values = { first: `${plan.runId}/trial-${number}/first`, second: `${plan.runId}/trial-${number}/second` };
    const trial = await runTrial(ports, { key: plan.key, className: plan.className, ttlSeconds: plan.ttlSeconds, number, point, values, limits }, say(number));
    trials.push(trial);
    say(number)(`${trial.verdict.toUpperCase()} at pause point ${JSON.stringify(point)}: ${trial.reason}`);
    if (trial.verdict === 'inconclusive') break; // the next trial would meet the same obstacle
    if (plan.points === undefined) {
      const seen = new Set([...trials.map((t) => t.point), ...queue]);
      queue.push(...new Set([...(trial.passedBefore ?? []), ...(trial.passed ?? [])].filter((p) => !seen.has(p))));
    }
  }
  const report = { trials, durationMs: ports.clock.now() - startMs, ...verdictOf(trials) };
  say(undefined)(`${report.passed ? 'PASS' : 'FAIL'}: ${report.summary}`);
  return report;
}

function verdictOf(trials: readonly TrialReport[]): { passed: boolean; summary: string } {
  const notPassed = trials.find((t) => t.verdict !== 'pass');
  if (notPassed !== undefined) return { passed: false, summary: `trial ${notPassed.number} at pause point ${JSON.stringify(notPassed.point)}: ${notPassed.verdict}: ${notPassed.reason}` };
  const refused = trials.filter((t) => t.point !== AFTER_WRITE);
  if (refused.length === 0) return { passed: false, summary: 'no trial froze the first holder before its write ended, so no stale write met the resource; test the point "before" too (ADR-17: watch it refuse something)' };
  return { passed: true, summary: `the resource refused the stale write at ${plural(refused.length, 'pause point')} (${refused.map((t) => t.point).join(', ')}) and kept the newer holder's write at every one of the ${plural(trials.length, 'trial')}` };
}

function plural(count: number, what: string): string {
  return `${count} ${what}${count === 1 ? '' : 's'}`;
}
