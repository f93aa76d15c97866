// What a replay in the page says about the saved run. The trace hash is the simulator's determinism
// check, and since the simulator draws its latencies with portable ln and exp (sim/, not the engine's
// implementation-approximated Math.log/exp) node and a browser give the same hash for a seed. It can
// still differ for a run saved by another version of lockstep, for instance one that traces more or
// fewer records. So when the hashes differ the page also compares what the views draw, the history and
// the checks: if those are identical, the replay shows the saved run; otherwise it is a different run.
import type { ArtifactJson } from './artifact-file.js';

export type ReplayAgreement = 'same-trace' | 'same-history' | 'different';

const stable = (value: unknown): string => JSON.stringify(value ?? null);

export function compareReplay(saved: ArtifactJson, replayed: ArtifactJson): ReplayAgreement {
  if (saved.traceHash === replayed.traceHash) return 'same-trace';
  const sameChecks = stable(saved.checks.map((c) => [c.name, c.ok, c.detail])) === stable(replayed.checks.map((c) => [c.name, c.ok, c.detail]));
  return sameChecks && stable(saved['history']) === stable(replayed['history']) ? 'same-history' : 'different';
}

/** One sentence for the page, saying what was replayed and how far it agrees with the saved run. */
export function replayNote(agreement: ReplayAgreement, saved: ArtifactJson, replayed: ArtifactJson, purpose: string): string {
  const what = `replayed from its seed and fault schedule in this page${purpose}`;
  switch (agreement) {
    case 'same-trace':
      return `${what}: same trace hash ${saved.traceHash}, so the run is reproduced exactly.`;
    case 'same-history':
      return `${what}: the history and every check are identical to the saved run's; the trace hash (${replayed.traceHash}, saved ${saved.traceHash}) differs: the trace records something the views do not draw differently (was the artifact written by another version of lockstep?).`;
    case 'different':
      return `${what}: trace hash ${replayed.traceHash} DIFFERS from the saved ${saved.traceHash}, and so do the history or the checks: the simulator or the scenario changed since the artifact was written (or a rounding difference between JavaScript engines changed the order of events). Shown: the replay, checks and timeline.`;
  }
}
