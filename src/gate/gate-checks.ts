// The checks of a gate run (issue 15, ADR-23), the checkers the simulator's runs go through
// (core/checkers), over what real processes can say:
// - linearizability: the lock model (the code `lockstep check --model lock` runs) over the clients'
//   operations and the log's bounded expire events (history/log-events.ts);
// - exclusion: in the log's own order (revisions from the audit interpreter), each hold ends before the
//   next grant of its key;
// - token order: grants in the order the watch delivered them (the log's order) have rising tokens;
// - fence: the resource's accepted and refused writes (no stale write accepted); a fenced resource's writes
//   placed inside their [invoke, completion] intervals in token order where the intervals allow it
//   (history/write-instants.ts), an unfenced one's spanning their intervals;
// - deadline (ADR-12): each hold the log ended by expiry was fenced by its holder's library first, its
//   fence stamped when the gate heard of it, the expiry at its bounded instant; excused while the holder
//   was paused. A released handle's session is watched by its client until the release is known to have
//   deleted the hold, so a hold whose release was in doubt has its fence too. Holds no client was told of
//   (an acquire of unknown outcome) have no handle to fence them, and are counted, not checked.
// Not run: belief (canStart() spans in true time: a real process's belief has no true time the gate can
// read without a clock of its own in the holder; the deadline check and the fence stand in for it) and
// audit-complete (the gate's watch is the audit: there is no second recorder to compare it with).
import type { CheckResult } from '../../core/checkers/check-result.js';
import { checkDeadline } from '../../core/checkers/deadline.js';
import type { HistoryEvent } from '../../core/checkers/history.js';
import { checkRun } from '../../core/checkers/check-run.js';
import type { GrantRecord, HoldEndReason, HolderOutage } from '../../core/checkers/run-history.js';
import type { Resource } from './client/client-protocol.js';
import { type BoundedEnd, boundEnds, expireEvents } from './history/log-events.js';
import type { LogGrant } from './history/log-tail.js';
import { placeFencedWrites } from './history/write-instants.js';
import { RESOURCE, type HistoryRecorder } from './history/recorder.js';
import { clientOfIdentity } from './real-cluster.js';

export interface GateEvidence {
  readonly recorder: HistoryRecorder;
  readonly grants: readonly LogGrant[];
  readonly outages: readonly HolderOutage[];
  readonly resource: Resource;
}

export interface GateChecks {
  readonly results: CheckResult[];
  /** The history file's events: the clients' and the log's, in time order. */
  readonly events: HistoryEvent[];
  readonly grants: GrantRecord[];
  readonly notDeadlineChecked: { readonly unknownToClients: number };
  readonly logEvents: number;
}

const END_REASON: Record<string, HoldEndReason> = { release: 'release', expiry: 'expiry', 'force-release': 'force-release', 'epoch-advance': 'epoch-advance', unexplained: 'expiry' };

export function checkGate(evidence: GateEvidence): GateChecks {
  const clientEvents = evidence.recorder.events;
  const ends = boundEnds(
    evidence.grants.flatMap((g) => (g.end === undefined ? [] : [{ key: g.key, token: g.token, kind: g.end.kind, revision: g.end.revision, seenAtMs: g.end.seenAtMs }])),
    clientEvents,
  );
  const endOf = new Map<string, BoundedEnd>(ends.map((e) => [`${e.key} ${e.token}`, e]));
  const grants: GrantRecord[] = evidence.grants.map((g) => {
    const end = endOf.get(`${g.key} ${g.token}`);
    return {
      key: g.key, token: g.token, holder: clientOfIdentity(g.identity), revision: g.revision, grantedAtMs: g.seenAtMs,
      ...(g.session === undefined ? {} : { session: g.session }),
      ...(end === undefined || g.end === undefined ? {} : { endedAtRevision: g.end.revision, endedAtMs: end.atMs, endReason: END_REASON[g.end.kind] ?? 'expiry' }),
    };
  });
  const logEvents = expireEvents(ends);
  const events = [...clientEvents, ...logEvents].map((event, index) => ({ event, index })).sort((a, b) => a.event.time - b.event.time || a.index - b.index).map(({ event }) => event);
  const results = checkRun(
    { grants, writes: evidence.resource === 'fenced' ? placeFencedWrites(evidence.recorder.writes) : evidence.recorder.writes, resources: [{ name: RESOURCE, fenced: evidence.resource === 'fenced' }], events },
    { resource: evidence.resource },
  );
  // The deadline, on the holds a client's library owned a handle of to the end (header).
  const told = new Set(clientEvents.filter((e) => e.f === 'acquire' && e.type === 'ok').map((e) => `${e.key} ${(e.value as { token: string }).token}`));
  const expired = grants.filter((g) => g.endReason === 'expiry');
  const owned = grants.filter((g) => told.has(`${g.key} ${g.token}`));
  results.push(checkDeadline(owned, evidence.recorder.fences, evidence.outages));
  return {
    results,
    events,
    grants,
    logEvents: logEvents.length,
    notDeadlineChecked: {
      unknownToClients: expired.filter((g) => !told.has(`${g.key} ${g.token}`)).length,
    },
  };
}
