// What a replay in the page says about the saved run. The trace hash is the simulator's determinism
// check, but it can differ between node (where `lockstep run` wrote the artifact) and a browser even
// when nothing changed: the simulator samples latencies through Math.exp and Math.log, which ECMAScript
// leaves "implementation-approximated", and two V8 versions can round one sample a bit apart (seen:
// pause-test/unfenced seed 1, one fsync latency 3.3354961293583187 ms in node 20, ...262 in Chromium).
// So when the hashes differ the page also compares what the views draw, the history and the checks:
// if those are identical, the replay shows the saved run; otherwise it is a different run.
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
      return `${what}: the history and every check are identical to the saved run's; the trace hash (${replayed.traceHash}, saved ${saved.traceHash}) differs, as it does when this browser's Math.exp/Math.log round a sampled latency differently from node's.`;
    case 'different':
      return `${what}: trace hash ${replayed.traceHash} DIFFERS from the saved ${saved.traceHash}, and so do the history or the checks: the simulator or the scenario changed since the artifact was written (or a rounding difference between JavaScript engines changed the order of events). Shown: the replay, checks and timeline.`;
  }
}
