// The gate's fault log (issue 15): the lines the shared schedule (scenarios/apply-target-fault.ts
// runTargetFaults, the one rule for both worlds) writes as faults fire, kept with their kind and outcome
// so the report can count them per kind: injected, skipped (the fault did not apply when it fired) and
// failed (the real target's call rejected: the rule logs `<what> failed: <why>` later, and that marks the
// line it belongs to).
import type { Fault } from '../../scenarios/faults.js';

export interface FaultLogLine {
  /** When it was written, ms after the workload's start (rounded). */
  readonly atMs: number;
  readonly kind: Fault['kind'] | 'resume';
  outcome: 'injected' | 'skipped' | 'failed';
  what: string;
}

export interface FaultLog {
  readonly lines: FaultLogLine[];
  /** runTargetFaults' `onLog`. */
  onLog(fault: Fault, description: string): void;
}

export function faultLog(now: () => number): FaultLog {
  const lines: FaultLogLine[] = [];
  const lastOf = new Map<Fault, FaultLogLine>();
  return {
    lines,
    onLog(fault, description) {
      const failure = / failed: /.exec(description);
      const last = lastOf.get(fault);
      if (failure !== null && last !== undefined) {
        // The asynchronous call of a line already written rejected: that line's fault failed.
        last.outcome = 'failed';
        last.what = description;
        return;
      }
      const skipped = description.startsWith('skip: ');
      const what = skipped ? description.slice('skip: '.length) : description;
      // A later line of a pause (its forMs resume) is a resume.
      const kind = last !== undefined && fault.kind === 'pause' && /^resume /.test(what) ? 'resume' : fault.kind;
      const line: FaultLogLine = { atMs: Math.round(now()), kind, outcome: skipped ? 'skipped' : 'injected', what };
      lines.push(line);
      lastOf.set(fault, line);
    },
  };
}

/** How many faults of each kind were injected, skipped and failed. */
export function countFaults(lines: readonly FaultLogLine[]): Record<string, { injected: number; skipped: number; failed: number }> {
  const counts: Record<string, { injected: number; skipped: number; failed: number }> = {};
  for (const line of lines) {
    const count = (counts[line.kind] ??= { injected: 0, skipped: 0, failed: 0 });
    count[line.outcome] += 1;
  }
  return counts;
}
