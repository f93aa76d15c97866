// The command the page offers for replaying a run from a terminal (issue 18): built here from fields
// checked one by one, never copied from an artifact. An artifact's `replay` text is whatever its author
// wrote (`lockstep replay x.json; curl ... | sh`), and a command is pasted into a shell. The scenario and
// variant must be ones the workbench runs (the worker's registry); the seed and file name must match
// patterns a shell reads as one plain word that is not an option. Anything else gets no command, and the
// page says why.
import { replayFileCommand, runCommand } from '../../scenarios/replay-command.js';
import { artifactFileName } from './artifact-file.js';
import type { ScenarioInfo } from './workbench-api.js';

/** Letters, digits, '.', '_', '-', not first: one shell word, never an option, no path. */
export const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The same for a seed (`lockstep run --seed` takes any text; a command shown here only plain ones). */
export const SAFE_SEED = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What the command reruns: the variant's own fault schedule, or a saved file (its schedule inside). */
export type CommandBasis =
  | { readonly kind: 'variant-schedule' }
  /** `name`: the file the artifact was loaded from, when it has one; otherwise the file Save writes. */
  | { readonly kind: 'file'; readonly name?: string };

export type ReplayCommand = { readonly text: string; readonly hint: string } | { readonly text?: undefined; readonly refusal: string };

export function buildReplayCommand(run: { readonly scenario: string; readonly variant: string; readonly seed: string }, scenarios: readonly ScenarioInfo[], basis: CommandBasis): ReplayCommand {
  const scenario = scenarios.find((s) => s.name === run.scenario);
  if (scenario === undefined) return { refusal: 'its scenario is not one this workbench runs' };
  const variantIndex = scenario.variants.findIndex((v) => v.name === run.variant);
  if (variantIndex < 0) return { refusal: `its variant is not one of ${scenario.name}'s` };
  if (!SAFE_SEED.test(run.seed)) return { refusal: "its seed is not plain letters, digits, '.', '_' and '-', so no command is shown for it; run it from the page" };
  if (basis.kind === 'variant-schedule') return { text: runCommand(scenario.name, variantIndex === 0 ? undefined : run.variant, run.seed), hint: '' };
  if (basis.name !== undefined && SAFE_FILE_NAME.test(basis.name)) return { text: replayFileCommand(basis.name), hint: ' (the file you loaded; the replay runs its fault schedule)' };
  const saved = artifactFileName(run);
  return { text: replayFileCommand(saved), hint: ` (the file Save artifact writes, with the schedule this run was given${basis.name === undefined ? '' : '; the loaded file\'s own name is not a plain file name'})` };
}
