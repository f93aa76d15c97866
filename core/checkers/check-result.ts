// What every checker returns, so a run artifact (ARCHITECTURE.md, scenarios/) can list them alike.
// Plain JSON data: tokens and revisions are decimal strings here, never bigints.
import { formatMs } from '../numbers.js';

export type CheckerName = 'exclusion' | 'token-order' | 'belief' | 'fence' | 'deadline' | 'linearizability' | 'audit-complete' | 'free-key-wait' | 'in-doubt-resolved' | 'hold-outlives-interest' | 'false-fence' | 'unprotected';

export type ViolationKind =
  /** Two holds of one key overlap in the log's applied order. */
  | 'overlap'
  /** A grant, later in true time than another of the same cluster or key, has a token not above it. */
  | 'token-not-increasing'
  /** Two grants of one cluster carry the same token. */
  | 'token-reused'
  /** A holder could still start work after another holder was granted the key. */
  | 'belief-after-later-grant'
  /** A holder could start work before the log granted it the key. */
  | 'belief-before-grant'
  /** A holder believed it held a grant the log never made. */
  | 'belief-without-grant'
  /** A fenced resource accepted a token below its high-water mark. */
  | 'fence-accepted-below-mark'
  /** Two holders wrote to an unfenced resource at once. */
  | 'unfenced-overlap'
  /** An unfenced resource took a write with a token below one it had already taken (a stale holder's lost update). */
  | 'unfenced-stale-write'
  /** A running holder's library fenced a hold only after the log had expired it. */
  | 'fence-after-expiry'
  /** The log expired a hold whose running holder's library never fenced it. */
  | 'fence-never-called'
  /** The operations of a key have no legal sequential order under the model. */
  | 'not-linearizable'
  /** A committed lock event is not in the audit, and no recorded gap covers its revision: silence. */
  | 'audit-missing'
  /** A committed lock event is in the audit more than once. */
  | 'audit-duplicate'
  /** The audit has the event with another kind (a release for an expiry), token or holder. */
  | 'audit-wrong-event'
  /** The audit has a lock event the log never committed. */
  | 'audit-extra'
  /** The run ended with a committed event still not in the audit, long after it was committed. */
  | 'audit-behind'
  /** The audit records a gap that no compaction of the log explains. */
  | 'audit-gap-unfounded'
  /** A replay stored another reading of an event than the first one. */
  | 'audit-conflict'
  /** A waiter sat in line on a free key longer than a poll interval and the bound, with no fault to excuse it. */
  | 'waited-on-free-key'
  /** The log granted a hold during an acquire that was answered with a definite refusal. */
  | 'in-doubt-misreported'
  /** A hold whose grant or release was answered `indeterminate` was still in the log long after. */
  | 'in-doubt-unresolved'
  /** A hold stayed in the log more than a TTL after its holder had given it up. */
  | 'hold-outlived-interest'
  /** A holder's library fenced a hold it still wanted while a quorum was healthy and reachable. */
  | 'false-fence'
  /** Two holders of one key believed at once, and neither grant was unprotected (ADR-04 allows overlap only for those). */
  | 'protected-overlap'
  /** A class that fails closed was granted from memory (token 0) during an outage (ADR-04). */
  | 'closed-class-unprotected'
  /** A grant or end an arbiter spooled is not in the audit store after recovery. */
  | 'unprotected-lost'
  /** A spooled record is in the audit store more than once, or a grant has more than one end. */
  | 'unprotected-twice';

export interface Involved {
  /** The holder's identity, or the process of an operation. */
  readonly holder: string;
  /** The fencing token as a decimal string, when one is involved. */
  readonly token?: string;
}

/** A holder and its token as a violation names them (tokens as decimal strings, ADR-02). */
export function involvedIn(item: { readonly holder: string; readonly token: bigint }): Involved {
  return { holder: item.holder, token: String(item.token) };
}

export interface Violation {
  readonly kind: ViolationKind;
  readonly key: string;
  /** A sentence for a person: the key, both holders, and the times or revisions. */
  readonly message: string;
  /** Earlier first. */
  readonly involved: readonly Involved[];
  /** True time in ms of the moment the rule broke, where the checker knows it. */
  readonly atMs?: number;
  /** Log revisions involved, as decimal strings. */
  readonly revisions?: readonly string[];
  readonly resource?: string;
}

export interface CheckResult {
  readonly name: CheckerName;
  /** True only when the verdict is `ok`. */
  readonly ok: boolean;
  /** `unknown`: the checker could not decide (the linearizability search ran out of budget). */
  readonly verdict: 'ok' | 'violated' | 'unknown';
  /** One line: what was checked and what was found. */
  readonly detail: string;
  /** At most MAX_VIOLATIONS; `detail` says how many more there were. */
  readonly violations: readonly Violation[];
}

/** Put a limit on everything (STYLE.md, TigerBeetle): a broken run can have a violation per grant. */
export const MAX_VIOLATIONS = 100;

/** Builds a CheckResult from everything found, keeping the first MAX_VIOLATIONS. */
export function checkResult(name: CheckerName, found: readonly Violation[], checked: string): CheckResult {
  if (found.length === 0) return { name, ok: true, verdict: 'ok', detail: `ok: ${checked}`, violations: [] };
  const shown = found.slice(0, MAX_VIOLATIONS);
  const more = found.length > shown.length ? ` (the first ${shown.length} listed)` : '';
  const detail = `${found.length} violation${found.length === 1 ? '' : 's'}${more}: ${checked}; first: ${(found[0] as Violation).message}`;
  return { name, ok: false, verdict: 'violated', detail, violations: shown };
}

/** `12345.7 ms`: true time for messages, through the one number formatter (core/numbers.ts; no locale: core/ output is the same everywhere). */
export function ms(value: number): string {
  return formatMs(value);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
