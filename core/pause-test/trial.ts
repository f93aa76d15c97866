// One trial of the pause test (ADR-17) at one pause point: the first holder acquires and runs its
// guarded write up to the point; the kit freezes it whole; the second holder waits in line until the
// first holder's hold has expired, is granted a higher token and writes; the first holder is resumed and
// finishes its write with its old token. The verdict comes from the record read back from the resource,
// never from what either writer was told: the stale write must not have replaced the second holder's.
import type { Clock } from '../ports/clock.js';
import type { FencingToken } from '../units.js';
import { AFTER_WRITE, type FirstHolderControl, type FirstHolderOutcome, type PausePoint, type PauseTestLock, type PauseTestResource, type ResourceState, type WriteAnswer } from './ports.js';
import { within } from './within.js';

export interface TrialPorts {
  readonly clock: Clock;
  readonly lock: PauseTestLock;
  readonly firstHolder: FirstHolderControl;
  readonly resource: PauseTestResource;
}

export interface TrialLimits {
  /** For the first holder to start, acquire and reach its pause point. */
  readonly startMs: number;
  /** For the second holder to be granted the key: the first holder's hold must expire first (its TTL and then some). */
  readonly grantMs: number;
  /** For the second holder's write, before the kit resumes the first holder anyway (a write blocked on a lock the frozen holder holds). */
  readonly blockedWriteMs: number;
  /** For each write, freeze, resume, read and release to end. */
  readonly stepMs: number;
}

export interface TrialPlan {
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
  readonly number: number;
  readonly point: PausePoint;
  /** The values the two holders write: unique to this run and trial, so the record read back tells whose write it holds. */
  readonly values: { readonly first: string; readonly second: string };
  readonly limits: TrialLimits;
}

export type TrialVerdict = 'pass' | 'fail' | 'inconclusive';

export interface TrialReport {
  readonly number: number;
  readonly point: PausePoint;
  readonly verdict: TrialVerdict;
  /** Why, in a sentence for the owner. */
  readonly reason: string;
  readonly firstToken?: FencingToken;
  readonly secondToken?: FencingToken;
  readonly frozenMs?: number;
  readonly secondWrite?: WriteAnswer;
  readonly firstWrite?: WriteAnswer;
  /** The pause points the first holder's write passed before it stopped, and after it resumed. */
  readonly passedBefore?: readonly PausePoint[];
  readonly passed?: readonly PausePoint[];
  readonly finalState?: ResourceState;
}

export type Say = (text: string) => void;

export async function runTrial(ports: TrialPorts, plan: TrialPlan, say: Say): Promise<TrialReport> {
  const { clock, firstHolder } = ports;
  const { limits, point } = plan;
  const base = { number: plan.number, point };
  const inconclusive = (reason: string, more: Partial<TrialReport> = {}): TrialReport => ({ ...base, ...more, verdict: 'inconclusive', reason });
  say(`first holder: acquires ${plan.key}, asks canStart(), writes ${JSON.stringify(plan.values.first)} and stops at pause point ${JSON.stringify(point)}`);
  let firstToken: FencingToken;
  let passedBefore: readonly PausePoint[];
  try {
    ({ token: firstToken, passed: passedBefore } = await within(clock, limits.startMs, `the first holder reaching pause point ${JSON.stringify(point)}`, firstHolder.startAt(point, plan.values.first)));
  } catch (error) {
    await firstHolder.stop();
    return inconclusive(`the first holder did not reach pause point ${JSON.stringify(point)}: ${messageOf(error)}`);
  }
  await within(clock, limits.stepMs, 'freezing the first holder', firstHolder.freeze());
  const frozenAtMs = clock.now();
  say(`first holder holds token ${firstToken}, stands at ${JSON.stringify(point)}, and is frozen; the second holder asks for the key and waits in line until the first holder's hold expires (TTL ${plan.ttlSeconds} s)`);
  let second: Awaited<ReturnType<PauseTestLock['acquire']>>;
  try {
    second = await ports.lock.acquire({ key: plan.key, className: plan.className, ttlSeconds: plan.ttlSeconds, waitMs: limits.grantMs, onFence: () => {} });
  } catch (error) {
    await firstHolder.stop();
    return inconclusive(`the second holder was not granted ${plan.key} within ${seconds(limits.grantMs)} while the first holder was frozen: ${messageOf(error)}`, { firstToken });
  }
  const tokens = { firstToken, secondToken: second.token, passedBefore };
  say(`second holder is granted token ${second.token}, ${seconds(clock.now() - frozenAtMs)} after the freeze, and writes ${JSON.stringify(plan.values.second)}`);
  try {
    return await afterSecondGrant(ports, plan, say, { ...base, ...tokens }, frozenAtMs);
  } finally {
    await within(clock, limits.stepMs, 'the second holder releasing', second.release()).catch(() => undefined);
  }
}

type Granted = { readonly number: number; readonly point: PausePoint; readonly firstToken: FencingToken; readonly secondToken: FencingToken; readonly passedBefore: readonly PausePoint[] };

async function afterSecondGrant(ports: TrialPorts, plan: TrialPlan, say: Say, granted: Granted, frozenAtMs: number): Promise<TrialReport> {
  const { clock, firstHolder, resource } = ports;
  const { limits } = plan;
  if (granted.secondToken <= granted.firstToken) {
    await firstHolder.stop();
    return { ...granted, verdict: 'fail', reason: `the lock service granted the second holder token ${granted.secondToken}, not above the first holder's ${granted.firstToken}: tokens must strictly increase (ADR-02)` };
  }
  const secondWriting = resource.write(granted.secondToken, plan.values.second);
  let resumed = false;
  let secondWrite = await within(clock, limits.blockedWriteMs, "the second holder's write", secondWriting).catch(() => undefined);
  if (secondWrite === undefined) {
    say(`the second holder's write has not ended after ${seconds(limits.blockedWriteMs)}: it may wait on a lock the frozen holder holds in the resource; resuming the first holder`);
    await within(clock, limits.stepMs, 'resuming the first holder', firstHolder.resume());
    resumed = true;
    secondWrite = await within(clock, limits.stepMs, "the second holder's write", secondWriting);
  }
  const afterSecond = await within(clock, limits.stepMs, 'reading the record back', resource.read());
  say(`second holder's write: ${describeAnswer(secondWrite)}; the record holds ${describeState(afterSecond)}`);
  if (!resumed) await within(clock, limits.stepMs, 'resuming the first holder', firstHolder.resume());
  const frozenMs = Math.round(clock.now() - frozenAtMs);
  say(`first holder resumed after ${seconds(frozenMs)} frozen; it carries on from ${JSON.stringify(plan.point)} with its old token ${granted.firstToken}`);
  let outcome: FirstHolderOutcome;
  try {
    outcome = await within(clock, limits.stepMs + plan.ttlSeconds * 1000, "the first holder's write ending", firstHolder.finish());
  } catch (error) {
    await firstHolder.stop();
    return { ...granted, frozenMs, secondWrite, verdict: 'inconclusive', reason: `the first holder's write did not end: ${messageOf(error)}` };
  }
  const finalState = await within(clock, limits.stepMs, 'reading the record back', resource.read());
  say(`first holder's write ended (it was told: ${describeAnswer(outcome.write)}; it passed ${outcome.passed.map((p) => JSON.stringify(p)).join(', ') || 'no further pause point'}); the record holds ${describeState(finalState)}`);
  const report = { ...granted, frozenMs, secondWrite, firstWrite: outcome.write, passed: outcome.passed, finalState };
  return { ...report, ...judge(plan, afterSecond, outcome, finalState) };
}

/** The verdict, from the record read back: whose value does it hold? */
function judge(plan: TrialPlan, afterSecond: ResourceState, outcome: FirstHolderOutcome, finalState: ResourceState): { verdict: TrialVerdict; reason: string } {
  const { first, second } = plan.values;
  if (afterSecond.value !== second) {
    return { verdict: 'fail', reason: `the record did not take the second holder's write (it holds ${describeState(afterSecond)}): a fence must take the current holder's write, or the kit cannot watch it refuse the stale one` };
  }
  if (finalState.value === first) {
    return { verdict: 'fail', reason: "the resource took the first holder's stale write after the second holder's: two holders wrote, and the newer write is lost (ADR-17)" };
  }
  if (finalState.value !== second) return { verdict: 'fail', reason: `the record holds neither holder's value after the trial (${describeState(finalState)})` };
  if (plan.point === AFTER_WRITE) return { verdict: 'pass', reason: "the first holder had written before its pause; the second holder's later write stands" };
  if (!outcome.passed.includes(AFTER_WRITE)) {
    return { verdict: 'inconclusive', reason: `the first holder's write stopped before its end (${describeAnswer(outcome.write)}), so the kit did not see the resource refuse it` };
  }
  return { verdict: 'pass', reason: "the resource refused the stale write: the record still holds the second holder's value" };
}

export function describeAnswer(answer: WriteAnswer): string {
  return answer.detail === undefined ? answer.answer : `${answer.answer} (${answer.detail})`;
}

export function describeState(state: ResourceState): string {
  const value = state.value === undefined ? 'no value' : JSON.stringify(state.value);
  return state.detail === undefined ? value : `${value}, ${state.detail}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
