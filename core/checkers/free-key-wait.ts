// Liveness (issue 11): no waiter stays on a free key longer than the poll interval plus a bound. A waiter
// that misses its wake polls (ADR-15), so once the log holds nothing on a key, some waiter of that key
// must be granted it within one poll interval (jitter included) and the bound, unless a disturbance
// delays it. Before this checker a wait that ended in `wait-timeout` on a free key read as an ordinary
// refusal: a poll fallback that stopped polling (L3), a parent key's line that counted the waiters of the
// keys below it (L4), an orphaned durable place at the head of a line (L5) all looked like contention.
// "Free" is the log's truth (GrantRecord), not what any arbiter believed.
import { type CheckResult, type Violation, checkResult, ms, plural } from './check-result.js';
import { crashAfter, deadlineAfter, disturbanceDuring } from './liveness-time.js';
import type { GrantRecord, HolderOutage, Interest, LivenessRun } from './run-history.js';

export function checkFreeKeyWait(grants: readonly GrantRecord[], run: LivenessRun, outages: readonly HolderOutage[] = []): CheckResult {
  const { pollIntervalMs, boundMs } = run.bounds;
  const allowanceMs = pollIntervalMs + boundMs;
  const holdsOf = new Map<string, GrantRecord[]>();
  for (const grant of grants) holdsOf.set(grant.key, [...(holdsOf.get(grant.key) ?? []), grant]);
  const found: Violation[] = [];
  // An acquire sent during a disturbance may never have reached a line (a cut ate the request): its task
  // waits out its RPC deadline outside any line, which no poll can shorten. Those waits are not judged.
  const waits = run.interests.filter((i) => i.waitMs > 0 && disturbanceDuring(i.fromMs, i.fromMs, run.disturbances) === undefined);
  for (const wait of waits) {
    const [fromMs, toMs] = waitWindow(wait, run, outages);
    for (const [freeFromMs, freeToMs] of freeStretches(holdsOf.get(wait.key) ?? [], fromMs, toMs)) {
      const deadlineMs = deadlineAfter(freeFromMs, allowanceMs, run.disturbances);
      if (freeToMs <= deadlineMs) continue;
      const answer = wait.outcome === 'pending' ? 'still waiting' : `answered ${wait.outcome === 'granted' ? 'granted' : (wait.code ?? wait.outcome)}${wait.answeredMs === undefined ? '' : ` at ${ms(wait.answeredMs)}`}`;
      const message =
        `key ${wait.key}: ${wait.task} waited in line from ${ms(wait.fromMs)} (wait ${ms(wait.waitMs)}, ${answer}) while the log held nothing on the key from ${ms(freeFromMs)} to ${ms(freeToMs)}, ` +
        `${ms(freeToMs - freeFromMs)}: longer than a poll interval (${ms(pollIntervalMs)}) and the bound (${ms(boundMs)}), no fault to excuse it (ADR-15)`;
      found.push({ kind: 'waited-on-free-key', key: wait.key, message, involved: [{ holder: wait.holder }], atMs: deadlineMs });
      break; // one violation per wait
    }
  }
  return checkResult('free-key-wait', found, `${plural(waits.length, 'wait')} in line checked against the log's free spans (a poll interval, ${ms(pollIntervalMs)}, and ${ms(boundMs)} allowed)`);
}

/** The span the task waited in line: from its acquire to its answer, at most its wait, cut by its crash or the run's end. */
function waitWindow(wait: Interest, run: LivenessRun, outages: readonly HolderOutage[]): [number, number] {
  const crashMs = crashAfter(wait.holder, wait.fromMs, outages) ?? Number.POSITIVE_INFINITY;
  const answeredMs = wait.answeredMs ?? Number.POSITIVE_INFINITY;
  return [wait.fromMs, Math.min(answeredMs, crashMs, wait.fromMs + wait.waitMs, run.bounds.endedAtMs)];
}

/** The parts of [fromMs, toMs) in which none of `holds` (one key's) was in the log. */
export function freeStretches(holds: readonly GrantRecord[], fromMs: number, toMs: number): [number, number][] {
  const spans = holds.map((g): [number, number] => [g.grantedAtMs, g.endedAtMs ?? Number.POSITIVE_INFINITY]).sort((a, b) => a[0] - b[0]);
  const free: [number, number][] = [];
  let cursorMs = fromMs;
  for (const [startMs, endMs] of spans) {
    if (cursorMs >= toMs) break;
    if (endMs <= cursorMs) continue;
    if (startMs > cursorMs) free.push([cursorMs, Math.min(startMs, toMs)]);
    cursorMs = Math.max(cursorMs, endMs);
  }
  if (cursorMs < toMs) free.push([cursorMs, toMs]);
  return free;
}
