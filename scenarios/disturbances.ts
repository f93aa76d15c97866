// The disturbances of a run (core/checkers/run-history.ts Disturbance) read from its fault schedule: the
// spans in which the liveness checkers excuse a slow service, each with the time the service needs to
// recover once the fault ends already added. Faults the core must absorb with no delay beyond its own
// rules are no disturbance: a lossy watch (ADR-15's poll carries the waiters), lost answers (in-doubt
// outcomes are resolved, issue 11 L2) unless every answer is lost, clock drift within ADR-12's margin. A lone stuck member leaves a
// quorum healthy and reachable: it excuses a slow grant, not a fence (false-fence, issue 11 L6).
import type { Disturbance } from '../core/checkers/index.js';
import type { Fault } from './faults.js';

export interface DisturbanceTiming {
  /** True time of the workload's start: fault times count from it. */
  readonly startMs: number;
  readonly ttlMs: number;
  /** The longest wait in line of the workload: a crashed waiter's place may stand that long. */
  readonly waitMs: number;
  /** How long after a fault ends the service may still be recovering (an election, renewals, expiries). */
  readonly recoverMs: number;
}

/** faults.ts: a browned-out client freezes at its next hold, within this long. */
const BROWNOUT_HOLD_WAIT_MS = 10_000;

/** The spans of `faults` (plain data, times from the workload's start) and of `extra` ones (drains), in true time. */
export function disturbancesOf(faults: readonly Fault[], timing: DisturbanceTiming, extra: readonly Disturbance[] = []): Disturbance[] {
  const { startMs, recoverMs } = timing;
  const endOf = (kind: 'resume' | 'restart' | 'heal' | 'advance-epoch', after: number, matches: (f: Fault) => boolean): number | undefined =>
    faults.filter((f) => f.kind === kind && f.atMs >= after && matches(f)).map((f) => f.atMs).sort((a, b) => a - b)[0];
  const span = (what: string, fromMs: number, toMs: number | undefined, quorumHealthy = false): Disturbance => ({
    what,
    fromMs: startMs + fromMs,
    ...(toMs === undefined ? {} : { toMs: startMs + toMs + recoverMs }),
    quorumHealthy,
  });
  const found: Disturbance[] = [];
  for (const fault of faults) {
    const at = fault.atMs;
    switch (fault.kind) {
      case 'pause':
        found.push(span(`pause of ${fault.target}`, at, fault.forMs === undefined ? endOf('resume', at, (f) => 'target' in f && f.target === fault.target) : at + fault.forMs));
        break;
      case 'crash': {
        const restart = endOf('restart', at, (f) => 'target' in f && f.target === fault.target);
        // A client's machine stays down: its session expires within a TTL, its places in line within its wait.
        const clientGone = fault.target.startsWith('client-') && restart === undefined ? at + timing.waitMs + timing.ttlMs : undefined;
        found.push(span(`crash of ${fault.target}`, at, restart ?? clientGone));
        break;
      }
      case 'partition':
      case 'slow-link':
        found.push(span(`${fault.kind} ${fault.id}`, at, endOf('heal', at, (f) => f.kind === 'heal' && f.id === fault.id)));
        break;
      case 'brownout':
        found.push(span(`brownout of ${fault.target}`, at, at + fault.freezeAfterMs + BROWNOUT_HOLD_WAIT_MS + fault.freezeForMs + fault.recoverMs));
        break;
      case 'stall-disk':
        found.push(span(`stalled disk of ${fault.target}`, at, at + fault.durationMs));
        break;
      case 'clock-step':
        found.push(span(`clock step of ${fault.target}`, at, at));
        break;
      case 'advance-epoch':
        found.push(span(`epoch advance via ${fault.via}`, at, at));
        break;
      case 'restore':
        // To the end of the run: the old cluster's holds are never ended in its log, only left behind.
        found.push(span('restore', at, undefined));
        break;
      case 'stuck-member':
        found.push(span(`stuck member ${fault.target}`, at, at + fault.forMs, true));
        break;
      case 'lose-answers':
        // Every write's answer lost: no copy of any write gets through, so the arbiter is cut off from the
        // log's answers as by a partition (its keepalives still pass: it excuses a slow grant, not a fence).
        // One answer in two or more: a copy sent again gets through, and the core must cope (issue 11).
        if (fault.everyNth === 1) found.push(span(`every answer lost to ${fault.target}`, at, at + fault.forMs + fault.timeoutMs, true));
        break;
      case 'lossy-watch':
      case 'clock-drift':
      case 'resume':
      case 'restart':
      case 'heal':
        break;
    }
  }
  return [...quorumOfStuckMembers(found), ...extra];
}

/** Two stuck members at once leave no quorum reachable: their overlapping spans excuse a fence too. */
function quorumOfStuckMembers(spans: readonly Disturbance[]): Disturbance[] {
  return spans.map((d) => {
    if (!d.quorumHealthy) return d;
    const overlaps = spans.some((o) => o !== d && o.quorumHealthy && o.fromMs < (d.toMs ?? Number.POSITIVE_INFINITY) && (o.toMs ?? Number.POSITIVE_INFINITY) > d.fromMs);
    return overlaps ? { ...d, quorumHealthy: false } : d;
  });
}
