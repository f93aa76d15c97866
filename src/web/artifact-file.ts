// Reading a run artifact the page was given (a dropped or chosen file, a ?run= URL) and writing one
// back (Save). The envelope checked here is what the runner view and a replay need: format, scenario,
// variant, seed, checks, trace hash; the timeline checks its own part when it mounts (viz/timeline).
// Every refusal names the source, the field and what would fix it.
import { toJson } from '../../core/json-text.js';

export const RUN_FORMAT = 'lockstep.run/1';

export interface CheckRow {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** A run artifact as plain JSON (scenarios/runner.ts RunArtifact after toJson). */
export interface ArtifactJson {
  readonly format: typeof RUN_FORMAT;
  readonly scenario: string;
  readonly variant: string;
  readonly seed: string;
  readonly expect?: string;
  readonly ok: boolean;
  readonly asDeclared?: boolean;
  readonly checks: readonly CheckRow[];
  readonly faults?: readonly unknown[];
  readonly metrics?: Readonly<Record<string, number>>;
  readonly traceHash: string;
  /** The simulator model that ran it (sim/model-version.ts); absent before it was saved (model 1). */
  readonly simModel?: number;
  readonly replay?: string;
  readonly timeline?: unknown;
  readonly [field: string]: unknown;
}

export class ArtifactLoadError extends Error {
  constructor(readonly source: string, readonly field: string, rule: string) {
    super(`${source}: ${field} ${rule}; load a file written by Save or by lockstep run --out`);
    this.name = 'ArtifactLoadError';
  }
}

export function parseArtifactText(text: string, source: string): ArtifactJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ArtifactLoadError(source, '(file)', `is not JSON (${(error as Error).message})`);
  }
  return checkArtifact(value, source);
}

export function checkArtifact(value: unknown, source: string): ArtifactJson {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ArtifactLoadError(source, '(file)', 'is not a JSON object');
  const a = value as Record<string, unknown>;
  if (a['format'] !== RUN_FORMAT) throw new ArtifactLoadError(source, 'format', `is ${JSON.stringify(a['format'])}, not "${RUN_FORMAT}" (is it a run artifact?)`);
  for (const field of ['scenario', 'variant', 'seed', 'traceHash'] as const) {
    if (typeof a[field] !== 'string' || a[field] === '') throw new ArtifactLoadError(source, field, 'must be a non-empty string');
  }
  if (typeof a['ok'] !== 'boolean') throw new ArtifactLoadError(source, 'ok', 'must be true or false');
  const checks = a['checks'];
  if (!Array.isArray(checks)) throw new ArtifactLoadError(source, 'checks', 'must be a list of {name, ok, detail}');
  checks.forEach((c: unknown, i) => {
    const check = c as Partial<CheckRow> | null;
    if (typeof check?.name !== 'string' || typeof check.ok !== 'boolean' || typeof check.detail !== 'string') {
      throw new ArtifactLoadError(source, `checks[${i}]`, 'must be {name: string, ok: boolean, detail: string}');
    }
  });
  if (a['faults'] !== undefined && !Array.isArray(a['faults'])) throw new ArtifactLoadError(source, 'faults', 'must be a list of faults');
  return value as ArtifactJson;
}

/** JSON with bigints as decimal strings, as the CLI writes artifacts (core/json-text.ts). */
export function artifactText(artifact: unknown): string {
  return `${toJson(artifact, 2)}\n`;
}

/** The file name Save offers: scenario, variant and seed, so a folder of saved runs sorts by scenario. */
export function artifactFileName(artifact: Pick<ArtifactJson, 'scenario' | 'variant' | 'seed'>): string {
  const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${safe(artifact.scenario)}-${safe(artifact.variant)}-seed-${safe(artifact.seed)}.json`;
}
