// The measured half of the simulator comparison (issue 15's --compare-sim, not built yet): for each fault
// kind, how long from the moment a fault was injected to the next grant the log made, on the history's
// clock (the watch's receipt of the grant). The median and the longest per kind, so a gate on another
// etcd version shows what a leader kill or a pause costs there.
import type { FaultLogLine } from './fault-loop.js';

export interface Recovery {
  readonly kind: string;
  readonly faults: number;
  /** Milliseconds from the fault to the next grant, median and longest; undefined when no grant followed. */
  readonly medianMs: number | undefined;
  readonly maxMs: number | undefined;
}

export function recoveries(lines: readonly FaultLogLine[], workloadStartMs: number, grantTimesMs: readonly number[]): Recovery[] {
  const grants = [...grantTimesMs].sort((a, b) => a - b);
  const byKind = new Map<string, number[]>();
  for (const line of lines) {
    // A clock drift is set at a process's start, not at a moment of the run: nothing to measure from.
    if (line.outcome !== 'injected' || line.kind === 'clock-drift') continue;
    const at = workloadStartMs + line.atMs;
    const next = grants.find((t) => t >= at);
    const list = byKind.get(line.kind) ?? [];
    if (next !== undefined) list.push(next - at);
    byKind.set(line.kind, list);
  }
  return [...byKind].map(([kind, gaps]) => {
    const sorted = [...gaps].sort((a, b) => a - b);
    const faults = lines.filter((l) => l.kind === kind && l.outcome === 'injected').length; // with or without a grant after
    return { kind, faults, medianMs: sorted.length === 0 ? undefined : (sorted[Math.floor((sorted.length - 1) / 2)] as number), maxMs: sorted.at(-1) };
  });
}
