// What each fault of a schedule did to the lock service, measured from a history (issue 15, ADR-23: "the
// simulator held against reality"). One rule, one place: the same function reads the gate's real history and
// the simulator's prediction of the same schedule (scenarios/gate-prediction.ts), so a difference between
// the two is a difference of the worlds, never of two ways of measuring.
//
// Inputs, all on one clock (ms): the lock model's events (history.ts; docs/history-format.md), the faults as
// applied (`atMs` after `originMs`, `target` the process the fault resolved to: a role must be resolved by the
// caller, from its fault log), and the library's fences (run-history.ts FenceRecord: when a holder's client
// library fenced a hold, ADR-12 stage two; the gate's recorder and the simulator's deadline probe record them).
// A fence is not an event of the history file: the lock model has no use for it, and the deadline checker
// already reads fences from this record.
//
// Per fault, from the fault's time:
// - nextGrantMs: to the first successful acquire's completion on any key (undefined: none before the end);
// - victimKeyGrantMs: when the fault's target held a key at the fault, to the first grant of that key with
//   another token (how long the victim's key was unavailable);
// - fenceMs: to the library fence of a hold open at the fault (the victim's own hold when it held one, else
//   the first fence within the window of any hold open at the fault): a cut-off holder's fence time;
// - in the window [fault, fault + windowMs): grants (ok acquires), refusals (failed acquires), writes the
//   resource accepted and refused.
// Per kind: how many faults, and min / median (nearest rank, as core/planner/percentiles.ts) / max of each.
import { percentile } from '../planner/percentiles.js';
import { type HistoryEvent, LOG_PROCESS } from './history.js';
import type { FenceRecord } from './run-history.js';

export interface AppliedFault {
  readonly atMs: number;
  readonly kind: string;
  /** The process the fault acted on, resolved (not `@holder`); absent for partitions, heals and the like. */
  readonly target?: string;
  /** The target as the schedule named it (`@leader`, `@holder`, or a process name), for grouping. */
  readonly named?: string;
}

export interface FaultEffectOptions {
  /** The events' time of the schedule's 0 (default 0). */
  readonly originMs?: number;
  /** How long after a fault its grants, refusals and writes are counted (default 10 s: two of the gate's TTLs). */
  readonly windowMs?: number;
  /** The library's fences (default none: no fence times are measured). */
  readonly fences?: readonly Pick<FenceRecord, 'holder' | 'key' | 'token' | 'atMs'>[];
  /** Only faults of these kinds are measured (default all). */
  readonly kinds?: readonly string[];
  /**
   * The row a fault is summarised in (default its kind). A caller may split a kind by what it hit, e.g.
   * `pause @leader` and `pause @holder`, from its own schedule: the two cost the service differently.
   */
  readonly groupOf?: (fault: AppliedFault, index: number) => string;
}

/** What one fault did. Times are ms after the fault; undefined when the history shows none. */
export interface FaultEffect {
  readonly fault: AppliedFault;
  /** The row it is summarised in (FaultEffectOptions.groupOf; default the kind). */
  readonly group: string;
  readonly atMs: number;
  readonly nextGrantMs: number | undefined;
  /** The key the target held at the fault, and the token it held it with. */
  readonly victimHold: { readonly key: string; readonly token: string } | undefined;
  readonly victimKeyGrantMs: number | undefined;
  readonly fenceMs: number | undefined;
  readonly grants: number;
  readonly refusals: number;
  readonly writesAccepted: number;
  readonly writesRefused: number;
}

/** min, median, max of one figure over a kind's faults (ms for times, a count for counts; count: how many faults had the figure at all). */
export interface FigureSummary {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export interface KindEffects {
  /** The fault kind (or the caller's group, FaultEffectOptions.groupOf). */
  readonly kind: string;
  readonly faults: number;
  readonly nextGrant: FigureSummary | undefined;
  readonly victimKeyGrant: FigureSummary | undefined;
  readonly fence: FigureSummary | undefined;
  /** Counts in each fault's window, summarised the same way (the figures are counts, not ms). */
  readonly grants: FigureSummary | undefined;
  readonly refusals: FigureSummary | undefined;
  readonly writesAccepted: FigureSummary | undefined;
  readonly writesRefused: FigureSummary | undefined;
}

export interface FaultEffects {
  readonly perFault: readonly FaultEffect[];
  /** One row per kind, in the order kinds first appear in the schedule. */
  readonly perKind: readonly KindEffects[];
}

const DEFAULT_WINDOW_MS = 10_000;

interface Grant {
  readonly process: string;
  readonly key: string;
  readonly token: string;
  readonly atMs: number;
}

interface Hold extends Grant {
  /** When it ended as the history shows: a release invoked or an expiry; Infinity while open. */
  readonly endMs: number;
}

export function measureFaultEffects(events: readonly HistoryEvent[], faults: readonly AppliedFault[], options: FaultEffectOptions = {}): FaultEffects {
  const originMs = options.originMs ?? 0;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const grants = grantsOf(events);
  const holds = holdsOf(events, grants);
  const fences = [...(options.fences ?? [])].sort((a, b) => a.atMs - b.atMs);
  const measured = faults.filter((f) => options.kinds === undefined || options.kinds.includes(f.kind));
  const groupOf = options.groupOf ?? ((fault: AppliedFault) => fault.kind);
  const perFault = measured.map((fault, index): FaultEffect => {
    const atMs = originMs + fault.atMs;
    const inWindow = (t: number): boolean => t >= atMs && t < atMs + windowMs;
    const after = (t: number | undefined): number | undefined => (t === undefined ? undefined : t - atMs);
    const open = holds.filter((h) => h.atMs <= atMs && h.endMs > atMs);
    const victim = fault.target === undefined ? undefined : open.find((h) => h.process === fault.target);
    const fenceOf = (hold: Hold): FenceRecord | undefined => fences.find((f) => f.atMs >= atMs && f.holder === hold.process && f.key === hold.key && f.token.toString(10) === hold.token) as FenceRecord | undefined;
    // The victim's own fence whenever it comes (a holder paused 15 s fences when it wakes); another open hold's
    // only within the window, as the counts are: before this bound, a session fenced by a later fault 13-33 s
    // on was charged to every earlier fault a hold of it was open at (5 m gate, seed 3, --compare-sim).
    const bystanderFence = (hold: Hold): FenceRecord | undefined => {
      const fence = fenceOf(hold);
      return fence !== undefined && inWindow(fence.atMs) ? fence : undefined;
    };
    const fence = victim !== undefined ? fenceOf(victim) : firstDefined(open.map(bystanderFence).sort((a, b) => (a?.atMs ?? Infinity) - (b?.atMs ?? Infinity)));
    const completions = events.filter((e) => e.type !== 'invoke' && e.process !== LOG_PROCESS && inWindow(e.time));
    return {
      fault,
      group: groupOf(fault, index),
      atMs,
      nextGrantMs: after(grants.find((g) => g.atMs >= atMs)?.atMs),
      victimHold: victim === undefined ? undefined : { key: victim.key, token: victim.token },
      victimKeyGrantMs: victim === undefined ? undefined : after(grants.find((g) => g.atMs >= atMs && g.key === victim.key && g.token !== victim.token)?.atMs),
      fenceMs: after(fence?.atMs),
      grants: completions.filter((e) => e.f === 'acquire' && e.type === 'ok').length,
      refusals: completions.filter((e) => e.f === 'acquire' && e.type === 'fail').length,
      writesAccepted: completions.filter((e) => e.f === 'write' && e.type === 'ok').length,
      writesRefused: completions.filter((e) => e.f === 'write' && e.type === 'fail').length,
    };
  });
  return { perFault, perKind: summariseEffects(perFault) };
}

/**
 * One row per group, in the order groups first appear: how many faults, and min / median / max of each figure.
 * Also for pooling several histories' faults (several simulated seeds of one schedule) before summarising.
 */
export function summariseEffects(perFault: readonly FaultEffect[]): KindEffects[] {
  const groups = [...new Set(perFault.map((e) => e.group))];
  return groups.map((kind): KindEffects => {
    const of = perFault.filter((e) => e.group === kind);
    const summary = (pick: (e: FaultEffect) => number | undefined): FigureSummary | undefined => summarise(of.map(pick).filter((v): v is number => v !== undefined));
    return {
      kind,
      faults: of.length,
      nextGrant: summary((e) => e.nextGrantMs),
      victimKeyGrant: summary((e) => e.victimKeyGrantMs),
      fence: summary((e) => e.fenceMs),
      grants: summary((e) => e.grants),
      refusals: summary((e) => e.refusals),
      writesAccepted: summary((e) => e.writesAccepted),
      writesRefused: summary((e) => e.writesRefused),
    };
  });
}

/** Each ok acquire that is not a re-entry, at its completion, in time order. */
function grantsOf(events: readonly HistoryEvent[]): Grant[] {
  return events
    .filter((e) => e.f === 'acquire' && e.type === 'ok' && tokenOf(e.value) !== undefined && (e.value as { reentered?: unknown }).reentered !== true)
    .map((e) => ({ process: e.process, key: e.key, token: tokenOf(e.value) as string, atMs: e.time }))
    .sort((a, b) => a.atMs - b.atMs);
}

/** Each grant with the end the history shows: its holder invoking the release of its token, or the log's expiry of it. */
function holdsOf(events: readonly HistoryEvent[], grants: readonly Grant[]): Hold[] {
  return grants.map((grant) => {
    const end = events.find((e) => e.time >= grant.atMs && e.key === grant.key && tokenOf(e.value) === grant.token && ((e.f === 'release' && e.type === 'invoke' && e.process === grant.process) || (e.f === 'expire' && e.process === LOG_PROCESS)));
    return { ...grant, endMs: end?.time ?? Number.POSITIVE_INFINITY };
  });
}

function tokenOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const token = (value as { token?: unknown }).token;
  return typeof token === 'string' ? token : undefined;
}

function firstDefined<T>(values: readonly (T | undefined)[]): T | undefined {
  return values.find((v) => v !== undefined);
}

function summarise(samples: readonly number[]): FigureSummary | undefined {
  if (samples.length === 0) return undefined;
  return { count: samples.length, min: Math.min(...samples), median: percentile(samples, 0.5), max: Math.max(...samples) };
}

/** One row of the comparison: a figure of one kind, measured beside predicted. */
export interface ComparisonRow {
  readonly kind: string;
  readonly figure: 'nextGrant' | 'victimKeyGrant' | 'fence' | 'grants' | 'refusals' | 'writesAccepted' | 'writesRefused';
  readonly measuredMedian: number | undefined;
  readonly predictedMedian: number | undefined;
  /** predicted / measured; undefined when either is missing or the measured median is 0. */
  readonly ratio: number | undefined;
  /** Within ±tolerance of the measured median (issue 15's goal: ±25%); false when a side is missing. */
  readonly within: boolean;
  /** Why it is not within (or why the figure cannot be compared): left for the caller, '' when not said. */
  readonly reason: string;
}

export const COMPARISON_FIGURES: readonly ComparisonRow['figure'][] = ['nextGrant', 'victimKeyGrant', 'fence', 'grants', 'refusals', 'writesAccepted', 'writesRefused'];
export const DEFAULT_TOLERANCE = 0.25;

/** Sets the predicted effects beside the measured, per kind and figure: every kind either side has. */
export function compareFaultEffects(measured: FaultEffects, predicted: FaultEffects, tolerance = DEFAULT_TOLERANCE): ComparisonRow[] {
  const kinds = [...new Set([...measured.perKind.map((k) => k.kind), ...predicted.perKind.map((k) => k.kind)])];
  return kinds.flatMap((kind) => {
    const m = measured.perKind.find((k) => k.kind === kind);
    const p = predicted.perKind.find((k) => k.kind === kind);
    return COMPARISON_FIGURES.map((figure): ComparisonRow => {
      const measuredMedian = m?.[figure]?.median;
      const predictedMedian = p?.[figure]?.median;
      const ratio = measuredMedian === undefined || predictedMedian === undefined || measuredMedian === 0 ? undefined : predictedMedian / measuredMedian;
      // Both zero is agreement (no refusals measured, none predicted); otherwise the ratio decides.
      const within = measuredMedian === 0 && predictedMedian === 0 ? true : ratio !== undefined && Math.abs(ratio - 1) <= tolerance;
      const reason =
        m === undefined ? 'not measured: the real run had no fault of this kind'
        : p === undefined ? 'not predicted: the simulated run had no fault of this kind'
        : measuredMedian === undefined || predictedMedian === undefined ? `${measuredMedian === undefined ? 'measured' : 'predicted'} history shows no ${figure}`
        : measuredMedian === 0 && predictedMedian !== 0 ? 'measured 0: no ratio'
        : '';
      return { kind, figure, measuredMedian, predictedMedian, ratio, within, reason };
    });
  });
}
