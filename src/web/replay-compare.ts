// What a replay in the page says about the run it replayed (issue 18). The decision is the one
// `lockstep replay` makes (scenarios/replay-comparison.ts, run in the worker); this is the page's
// wording of it. Whatever the comparison says, the page shows the replay's checks and timeline.
import { type ReplayComparison, recordSentence, runSentence } from '../../scenarios/replay-comparison.js';

/** One note: what was replayed, whether it is the same run, and whether the artifact's record is the replay's (a differing record is recordWarning's, shown apart). */
export function replayNote(comparison: ReplayComparison, what: string): string {
  const reproduced = comparison.run === 'same-trace' && comparison.recordMatches ? ', so the run is reproduced exactly' : '';
  const record = comparison.recordMatches ? `; ${recordSentence(comparison)}` : '';
  return `${what}: ${runSentence(comparison)}${record}${reproduced}. Shown: the replay's checks and timeline.`;
}

/** The warning a differing record gets, on its own line: `This artifact says ok; replaying it gives VIOLATION: fence (...)`. */
export function recordWarning(comparison: ReplayComparison): string | undefined {
  if (comparison.recordMatches) return undefined;
  const sentence = recordSentence(comparison);
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}. The checks shown are the replay's.`;
}
