// The gate's fault log (issue 15): the shared schedule (scenarios/apply-target-fault.ts runTargetFaults)
// writes a description per fault as it fires, and a second line for what a fault does later (a pause's own
// resume) or a call that failed afterwards; this reads them into lines per kind and outcome for the report.
import type { Fault } from '../../scenarios/faults.js';

export interface FaultLogLine {
  /** Ms after the workload's start (the schedule's 0), when the line was written. */
  readonly atMs: number;
  readonly kind: Fault['kind'] | 'resume';
  outcome: 'injected' | 'skipped' | 'failed';
  what: string;
}

export class FaultLog {
  readonly lines: FaultLogLine[] = [];
  private readonly linesOf = new Map<Fault, FaultLogLine[]>();

  constructor(private readonly now: () => number) {}

  /** runTargetFaults' onLog. */
  readonly onLog = (fault: Fault, description: string): void => {
    const failed = /^(.*?) failed: (.*)$/s.exec(description);
    const kind = fault.kind === 'pause' && /^(skip: )?resume /.test(description) ? 'resume' : fault.kind;
    const earlier = this.linesOf.get(fault) ?? [];
    if (failed !== null) {
      // A call that was made and failed later (its promise rejected): the line that said it was made is
      // marked failed, with why.
      const made = [...earlier].reverse().find((line) => line.kind === kind && line.outcome === 'injected');
      if (made !== undefined) {
        made.outcome = 'failed';
        made.what = `${made.what}: failed: ${failed[2] ?? ''}`;
        return;
      }
    }
    const outcome = description.startsWith('skip:') ? 'skipped' : failed !== null ? 'failed' : 'injected';
    const line: FaultLogLine = { atMs: Math.round(this.now()), kind, outcome, what: description };
    this.lines.push(line);
    this.linesOf.set(fault, [...earlier, line]);
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
