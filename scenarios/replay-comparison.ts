// What replaying a saved run artifact says about it (issue 18): the one comparison `lockstep replay` and
// the web workbench both use. A saved artifact is a claim; the replay is what its scenario, variant, seed
// and fault schedule give when run again. Two questions, answered separately:
// - is it the same run? The trace hash is the simulator's determinism check; when it differs (an artifact
//   written by another version of lockstep may trace more or fewer records) the history and checks are
//   compared, since they are what a reader sees.
// - is the artifact's record true? Its verdict (`ok`) and every check (name, ok, detail) must be the
//   replay's. A matching trace hash says nothing about them: the hash covers the trace, not the checks
//   written beside it, so an artifact whose checks were edited to "ok" keeps its hash.
// Whoever shows the run shows the replay's checks, and says so when the record differs. An artifact
// recorded by another simulator model (sim/model-version.ts; none named: model 1) whose hash differs is
// said to be that, plainly: the model changed, so the replay cannot be the run (issue 32).
import { showKeyText } from '../core/key-characters.js';
import { UNVERSIONED_MODEL } from '../sim/model-version.js';
import { toJson } from './history.js';

/** A check as an artifact records it and as the replay computes it. */
export interface ComparedCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** What a saved artifact says about its run: read from a file, so nothing in it is trusted, not even its shape. */
export interface RecordedRun {
  readonly ok?: unknown;
  readonly checks?: unknown;
  readonly traceHash?: unknown;
  readonly history?: unknown;
  /** The simulator model that recorded it; absent in artifacts written before it was saved (model 1). */
  readonly simModel?: unknown;
}

/** What the replay computed. */
export interface ComputedRun {
  readonly ok: boolean;
  readonly checks: readonly ComparedCheck[];
  readonly traceHash: string;
  readonly history?: unknown;
  readonly simModel: number;
}

/**
 * same-trace: the hashes match; other-model: they differ and the artifact was recorded by another simulator
 * model; same-history: they differ, but the history and checks the views draw do not; different: another run.
 */
export type RunAgreement = 'same-trace' | 'other-model' | 'same-history' | 'different';

export interface ReplayComparison {
  readonly run: RunAgreement;
  readonly recordedTraceHash: string;
  readonly replayedTraceHash: string;
  /** The model that recorded the artifact (1 when it names none) and the one that replayed it. */
  readonly recordedModel: number;
  readonly replayedModel: number;
  /** The artifact's verdict and checks are exactly the replay's. */
  readonly recordMatches: boolean;
  /** `ok`, `VIOLATION: fence`, or what is wrong with the recorded verdict. */
  readonly recordedVerdict: string;
  readonly replayedVerdict: string;
  /** One line per check where the record and the replay disagree, in the replay's order. */
  readonly checkDifferences: readonly string[];
}

export function compareReplay(recorded: RecordedRun, replayed: ComputedRun): ReplayComparison {
  const recordedChecks = readChecks(recorded.checks);
  const checkDifferences = recordedChecks === undefined ? ['the artifact has no list of checks {name, ok, detail}'] : differences(recordedChecks, replayed.checks);
  const recordedVerdict = verdictOf(recorded.ok, recordedChecks);
  const replayedVerdict = verdictOf(replayed.ok, replayed.checks);
  const recordMatches = recorded.ok === replayed.ok && checkDifferences.length === 0;
  const recordedTraceHash = typeof recorded.traceHash === 'string' ? shown(recorded.traceHash) : 'none';
  const sameHistory = stable(recorded.history) === stable(replayed.history);
  const recordedModel = recordedModelOf(recorded.simModel);
  const otherModel = recordedModel !== replayed.simModel;
  const run: RunAgreement = recordedTraceHash === replayed.traceHash ? 'same-trace' : otherModel ? 'other-model' : sameHistory && recordMatches ? 'same-history' : 'different';
  return { run, recordedTraceHash, replayedTraceHash: replayed.traceHash, recordedModel, replayedModel: replayed.simModel, recordMatches, recordedVerdict, replayedVerdict, checkDifferences };
}

/** A saved `simModel` (a whole number from 1), UNVERSIONED_MODEL when absent; anything else reads as model 0, never this one. */
function recordedModelOf(value: unknown): number {
  if (value === undefined) return UNVERSIONED_MODEL;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : 0;
}

/** Whether the replay is the saved run, for the CLI and the page alike. */
export function runSentence(comparison: ReplayComparison): string {
  const { recordedTraceHash: saved, replayedTraceHash: again } = comparison;
  switch (comparison.run) {
    case 'same-trace':
      return `same trace hash ${again}`;
    case 'other-model': {
      const { recordedModel: then, replayedModel: now } = comparison;
      const age = then < now ? 'an older' : 'another';
      return `NOT reproduced: the artifact was recorded by ${age} simulator model (${then === 0 ? 'an unreadable one' : `model ${then}`}; this lockstep simulates model ${now}), so its seed and schedule now give another run: trace hash ${again}, saved ${saved}. Run the scenario again for an artifact of model ${now}`;
    }
    case 'same-history':
      return `trace hash ${again} differs from the saved ${saved}, but the history and every check are identical: the trace records something the views do not draw differently (was the artifact written by another version of lockstep?)`;
    case 'different':
      return `trace hash ${again} DIFFERS from the saved ${saved}, and so do the history or the checks: another run (the simulator or the scenario changed since the artifact was written, or the artifact was edited)`;
  }
}

/** Whether the artifact's verdict and checks are the replay's: `this artifact says ok; replaying it gives VIOLATION: fence (...)`. */
export function recordSentence(comparison: ReplayComparison): string {
  if (comparison.recordMatches) return `the artifact's verdict (${comparison.replayedVerdict}) and checks are the replay's`;
  const verdicts =
    comparison.recordedVerdict === comparison.replayedVerdict
      ? `this artifact says ${comparison.recordedVerdict}, as its replay does, but its checks differ`
      : `this artifact says ${comparison.recordedVerdict}; replaying it gives ${comparison.replayedVerdict}`;
  const edited = comparison.run === 'same-trace' ? '; the trace hash is the same, so the run is, and the verdict or checks written beside it were edited after the run' : '';
  return `${verdicts} (${comparison.checkDifferences.join('; ') || 'the recorded verdict is not true or false'})${edited}`;
}

function verdictOf(ok: unknown, checks: readonly ComparedCheck[] | undefined): string {
  if (ok === true) return 'ok';
  if (ok !== false) return 'no verdict (ok is not true or false)';
  const failed = (checks ?? []).filter((c) => !c.ok).map((c) => shown(c.name));
  return failed.length === 0 ? 'VIOLATION' : `VIOLATION: ${failed.join(', ')}`;
}

function readChecks(value: unknown): ComparedCheck[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const checks: ComparedCheck[] = [];
  for (const item of value as unknown[]) {
    const c = item as Partial<ComparedCheck> | null;
    if (typeof c?.name !== 'string' || typeof c.ok !== 'boolean' || typeof c.detail !== 'string') return undefined;
    checks.push({ name: c.name, ok: c.ok, detail: c.detail });
  }
  return checks;
}

function differences(recorded: readonly ComparedCheck[], replayed: readonly ComparedCheck[]): string[] {
  const said = (ok: boolean): string => (ok ? 'ok' : 'FAIL');
  const lines: string[] = [];
  const names = new Set(replayed.map((c) => c.name));
  for (const again of replayed) {
    const saved = recorded.filter((c) => c.name === again.name);
    if (saved.length === 0) lines.push(`${again.name}: not in the artifact, the replay says ${said(again.ok)}`);
    else if (saved.length > 1) lines.push(`${again.name}: listed ${saved.length} times in the artifact`);
    else if (saved[0]?.ok !== again.ok) lines.push(`${again.name}: the artifact says ${said(saved[0]?.ok ?? false)}, the replay ${said(again.ok)}`);
    else if (saved[0]?.detail !== again.detail) lines.push(`${again.name}: both ${said(again.ok)}, but the artifact's detail differs from the replay's`);
  }
  for (const extra of recorded.filter((c) => !names.has(c.name))) lines.push(`${shown(extra.name)}: in the artifact (${said(extra.ok)}), not a check of the replay`);
  return lines;
}

/**
 * Text from the artifact as a message may print it: a plain name as it is, anything else quoted with
 * controls, bidi controls and invisible characters escaped, so a crafted check name cannot rewrite the
 * terminal line or the page that shows it (the same quoting as a lock key's, core/key-characters.ts).
 */
function shown(text: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(text) ? text : showKeyText(text.slice(0, 80));
}

/** Bigints as the saved file has them: decimal strings. */
function stable(value: unknown): string {
  return toJson(value ?? null);
}
