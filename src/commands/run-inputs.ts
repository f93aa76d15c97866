// What `lockstep run` and `lockstep replay` take from the user, each checked before anything runs, each
// refusal bad input (BadInput, exit 2) naming the flag or file, the rule and the fix: the scenario and
// variant, the seed (scenarios/seed.ts), a fault schedule file (the shared validator,
// scenarios/fault-schedule.ts, against the variant's processes), an artifact to replay (the web page's
// envelope check, src/web/artifact-file.ts), and the files a run will write (src/files/output-path.ts).
import { FaultScheduleError, parseFaultSchedule } from '../../scenarios/fault-schedule.js';
import type { Fault } from '../../scenarios/faults.js';
import { toJson } from '../../scenarios/history.js';
import { scenarioNamed } from '../../scenarios/registry.js';
import type { RunArtifact } from '../../scenarios/runner.js';
import { type Scenario, type Variant, variantOf } from '../../scenarios/scenario.js';
import { checkSeed, SeedError } from '../../scenarios/seed.js';
import { checkGivenSchedule } from '../../scenarios/variant-schedule.js';
import { BadInput } from '../cli-errors.js';
import { yieldToHost } from '../host-yield.js';
import { writeFileAtomically } from '../files/atomic-write.js';
import { outputFileProblem } from '../files/output-path.js';
import { MIB, readInputFile } from '../files/read-input.js';
import { type ArtifactJson, ArtifactLoadError, parseArtifactText } from '../web/artifact-file.js';

/** A fault schedule is a list of at most 200 small objects (MAX_FAULTS); far below this. */
export const MAX_FAULTS_FILE_BYTES = MIB;
/** A run artifact carries the run's history; explorer and `run --out` artifacts are a few MiB at most. */
export const MAX_ARTIFACT_BYTES = 256 * MIB;

export interface ChosenVariant {
  readonly scenario: Scenario;
  readonly variant: Variant;
}

/** The scenario and variant named; `where` prefixes a message ("run.json: "). */
export function chooseVariant(name: string, variantName: string | undefined, where = ''): ChosenVariant {
  try {
    const scenario = scenarioNamed(name);
    return { scenario, variant: variantOf(scenario, variantName) };
  } catch (error) {
    if (error instanceof RangeError) throw new BadInput(`${where}${error.message}`);
    throw error;
  }
}

export function seedOf(text: unknown, label: string): string {
  try {
    return checkSeed(text, label);
  } catch (error) {
    if (error instanceof SeedError) throw new BadInput(error.message);
    throw error;
  }
}

/** Refuses, before the run, every output that could not be written after it (and two outputs on one path). */
export async function checkOutputs(outputs: Readonly<Record<string, string | undefined>>): Promise<void> {
  const given = Object.entries(outputs).filter((entry): entry is [string, string] => entry[1] !== undefined);
  for (const [flag, path] of given) {
    const problem = await outputFileProblem(path);
    if (problem !== undefined) throw new BadInput(`${flag} ${JSON.stringify(path)}: ${problem}`);
  }
  const [first, second] = given;
  if (first !== undefined && second !== undefined && first[1] === second[1]) throw new BadInput(`${first[0]} and ${second[0]} both name ${first[1]}; give each its own file`);
}

/** The schedule in a `--faults` file, checked against the variant's processes for this seed. */
export async function readFaultsFile(path: string, chosen: ChosenVariant, seed: string, progress: (line: string) => void): Promise<Fault[]> {
  const text = await readInputFile(path, { what: 'a JSON list of faults, e.g. [{"atMs": 1000, "kind": "pause", "target": "alice", "forMs": 15000}]', maxBytes: MAX_FAULTS_FILE_BYTES });
  return scheduleOf(`--faults ${path}: `, () => checkGivenSchedule(parseFaultSchedule(text), chosen.scenario, chosen.variant.name, seed, yieldToHost, progress));
}

export interface SavedRun {
  readonly artifact: ArtifactJson;
  readonly chosen: ChosenVariant;
  readonly seed: string;
  /** undefined: the artifact has none recorded, and its variant's own runs. */
  readonly faults: Fault[] | undefined;
}

/** A saved artifact, its every field a replay needs checked. */
export async function readSavedRun(path: string, progress: (line: string) => void): Promise<SavedRun> {
  const text = await readInputFile(path, { what: 'a run artifact (the JSON file lockstep run --out, lockstep explore or the web page\'s Save writes)', maxBytes: MAX_ARTIFACT_BYTES });
  let artifact: ArtifactJson;
  try {
    artifact = parseArtifactText(text, path);
  } catch (error) {
    if (error instanceof ArtifactLoadError) throw new BadInput(error.message.replace('; load a file', '; give a file'));
    throw error;
  }
  const chosen = chooseVariant(artifact.scenario, artifact.variant, `${path}: `);
  const seed = seedOf(artifact.seed, `${path}: seed`);
  const faults = artifact.faults === undefined ? undefined : await scheduleOf(`${path}: `, () => checkGivenSchedule(artifact.faults, chosen.scenario, chosen.variant.name, seed, yieldToHost, progress));
  return { artifact, chosen, seed, faults };
}

async function scheduleOf(where: string, check: () => Promise<Fault[]>): Promise<Fault[]> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof FaultScheduleError) throw new BadInput(`${where}${error.message}`);
    throw error;
  }
}

export async function saveArtifact(path: string, artifact: RunArtifact): Promise<void> {
  await writeFileAtomically(path, `${toJson(artifact, 2)}\n`);
}
