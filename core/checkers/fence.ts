// Fence (ADR-16, ADR-01). A fenced resource never accepts a write the fence rule (core/fence) refuses
// in its weaker mode, at-or-above the mark: the mark is the highest token it accepted, per (resource,
// key), since the fence column sits on the row the key guards. An equal token is the same grant writing
// again (ADR-02), which ADR-16's strict clause refuses and `at-or-above` takes: either is safe, so the
// checker holds a resource only to the weaker mode.
//
// An unfenced resource takes whatever arrives, so two holders' writes must not interleave: each
// holder's accepted writes span [first start, last end], and the spans of two tokens must not share a
// moment (one span ending exactly where the other begins is a handover). Nor may it take a write the
// fence rule would have refused: a stale holder writing once, after the holder that followed it wrote,
// overwrites a newer write without interleaving spans (the pause test's lost update, ADR-17).
import { fenceAccepts } from '../fence/index.js';
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { type ResourceSpec, type ResourceWrite, compareBigints, groupBy, holderLabel } from './run-history.js';

export function checkFence(writes: readonly ResourceWrite[], resources: readonly ResourceSpec[]): CheckResult {
  const fenced = new Map(resources.map((r) => [r.name, r.fenced]));
  const found: Violation[] = [];
  for (const [, group] of groupBy(writes, (w) => JSON.stringify([w.resource, w.key]))) {
    const first = group[0] as ResourceWrite;
    const isFenced = fenced.get(first.resource);
    if (isFenced === undefined) throw new Error(`run history: resource ${first.resource} is written to but not declared in resources; declare it with fenced: true or false`);
    found.push(...(isFenced ? belowMark(group) : [...interleaved(group), ...staleAccepted(group)]));
  }
  const resourceCount = new Set(writes.map((w) => w.resource)).size;
  return checkResult('fence', found, `${plural(writes.length, 'write')} to ${plural(resourceCount, 'resource')} checked`);
}

/** The weaker of the fence rule's modes: a resource judged by either is safe (see the header). */
const CHECKED_MODE = 'at-or-above';

/** Each accepted write the fence rule refuses against the mark of the accepted writes before it, with that mark's write. */
function refusedByRule(writes: readonly ResourceWrite[]): Array<{ readonly write: ResourceWrite; readonly mark: ResourceWrite }> {
  const ordered = writes.map((write, index) => ({ write, index })).sort((a, b) => a.write.atMs - b.write.atMs || a.index - b.index);
  const found: Array<{ readonly write: ResourceWrite; readonly mark: ResourceWrite }> = [];
  let mark: ResourceWrite | undefined;
  for (const { write } of ordered) {
    if (!write.accepted) continue;
    if (mark !== undefined && !fenceAccepts(mark.token, write.token, CHECKED_MODE)) {
      found.push({ write, mark });
      continue;
    }
    mark = write;
  }
  return found;
}

function belowMark(writes: readonly ResourceWrite[]): Violation[] {
  return refusedByRule(writes).map(({ write, mark }) => {
    const message =
      `key ${write.key}: fenced resource ${write.resource} accepted token ${write.token} from ${write.holder} at ${ms(write.atMs)}, below its high-water mark ${mark.token} ` +
      `(set by ${holderLabel(mark)} at ${ms(mark.atMs)}); a fence accepts only tokens at or above its mark (ADR-16)`;
    return { kind: 'fence-accepted-below-mark', key: write.key, message, involved: [involvedIn(mark), involvedIn(write)], atMs: write.atMs, resource: write.resource };
  });
}

function staleAccepted(writes: readonly ResourceWrite[]): Violation[] {
  return refusedByRule(writes).map(({ write, mark }) => {
    const message =
      `key ${write.key}: unfenced resource ${write.resource} took writes from two holders at once: a stale write, token ${write.token} from ${write.holder} at ${ms(write.atMs)}, ` +
      `after ${holderLabel(mark)} had written at ${ms(mark.atMs)}, overwrote the newer holder's write; a fence would have refused it (ADR-16, ADR-01)`;
    return { kind: 'unfenced-stale-write', key: write.key, message, involved: [involvedIn(mark), involvedIn(write)], atMs: write.atMs, resource: write.resource };
  });
}

type Span = { readonly holder: string; readonly token: bigint; readonly startMs: number; readonly endMs: number; readonly writes: number };

function interleaved(writes: readonly ResourceWrite[]): Violation[] {
  const first = writes[0] as ResourceWrite;
  const spans = spansByToken(writes.filter((w) => w.accepted)).sort((a, b) => a.startMs - b.startMs || compareBigints(a.token, b.token));
  const found: Violation[] = [];
  spans.forEach((span, i) => {
    for (const later of spans.slice(i + 1)) {
      if (later.startMs > span.endMs) break;
      if (!shareAMoment(span, later)) continue;
      const message =
        `key ${first.key}: unfenced resource ${first.resource} took writes from two holders at once: ${holderLabel(span)} wrote from ${ms(span.startMs)} to ${ms(span.endMs)} ` +
        `(${plural(span.writes, 'write')}) and ${holderLabel(later)} from ${ms(later.startMs)} to ${ms(later.endMs)} (${plural(later.writes, 'write')}) (ADR-01)`;
      found.push({ kind: 'unfenced-overlap', key: first.key, message, involved: [involvedIn(span), involvedIn(later)], atMs: later.startMs, resource: first.resource });
    }
  });
  return found;
}

function spansByToken(writes: readonly ResourceWrite[]): Span[] {
  const spans = new Map<bigint, Span>();
  for (const w of writes) {
    const endMs = w.endMs ?? w.atMs;
    const span = spans.get(w.token);
    spans.set(
      w.token,
      span === undefined
        ? { holder: w.holder, token: w.token, startMs: w.atMs, endMs, writes: 1 }
        : { ...span, startMs: Math.min(span.startMs, w.atMs), endMs: Math.max(span.endMs, endMs), writes: span.writes + 1 },
    );
  }
  return [...spans.values()];
}

/** `earlier` starts no later than `later`. They share a moment unless one only ends where the other begins. */
function shareAMoment(earlier: Span, later: Span): boolean {
  if (later.startMs < earlier.endMs) return true;
  return later.startMs === earlier.endMs && earlier.startMs === later.startMs;
}
