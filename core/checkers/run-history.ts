// What a simulated run records for the direct checkers (exclusion, token order, belief, fence, deadline):
// pure data the scenarios produce from the simulator, which knows true time and the log's applied order.
// Tokens and revisions are bigints in memory (ADR-02); a run artifact writes them as decimal strings.
import type { AuditCheckpoint, AuditGap, AuditRecord } from '../audit/events.js';
import type { HistoryEvent } from './history.js';

/** How a hold ended in the log. */
export type HoldEndReason = 'release' | 'expiry' | 'force-release' | 'epoch-advance';

/** One hold as the log applied it: granted by one txn, ended by another (or still held when the run ended). */
// The optional fields may also be present as undefined: the simulator's recorder builds every grant with
// every field, so all share one shape (sim/world/log-recorder.ts, issue 16).
export interface GrantRecord {
  readonly key: string;
  readonly token: bigint;
  /** The identity (or simulated process) the grant went to. */
  readonly holder: string;
  /** The session (etcd lease) the hold is attached to (ADR-10), when the recorder knows it. */
  readonly session?: bigint | undefined;
  /** The etcd cluster that granted it; grants without one are all of one cluster. Revisions compare only within a cluster. */
  readonly cluster?: string | undefined;
  /** The revision of the granting txn. */
  readonly revision: bigint;
  /** True time at which the log applied the grant. */
  readonly grantedAtMs: number;
  /** The revision of the txn that deleted the hold; absent while still held. */
  readonly endedAtRevision?: bigint | undefined;
  /** True time at which the log applied the end. */
  readonly endedAtMs?: number | undefined;
  readonly endReason?: HoldEndReason | undefined;
}

/** A span of true time during which a holder's client library said `canStart()` was true (ADR-12). */
export interface BeliefInterval {
  readonly holder: string;
  readonly key: string;
  /** The token of the grant the holder believed it had. */
  readonly token: bigint;
  readonly fromMs: number;
  /** Exclusive; absent when the holder still believed at the end of the run. */
  readonly toMs?: number;
}

/** A write that reached a guarded resource, at the resource's own true time. */
export interface ResourceWrite {
  readonly resource: string;
  /** The lock key that guards the written row; a fence's high-water mark is per (resource, key). */
  readonly key: string;
  readonly holder: string;
  readonly token: bigint;
  /** When the resource applied (or refused) the write; writes at equal times count in the order given. */
  readonly atMs: number;
  /** When a write that takes time finished; defaults to `atMs`. */
  readonly endMs?: number;
  /** False when the fence refused it. */
  readonly accepted: boolean;
}

/**
 * When a holder's client library fenced a hold (ADR-12 stage two), in true time: the moment it called
 * onFence, or would have for a handle the holder had already released while the log still held it.
 */
export interface FenceRecord {
  readonly holder: string;
  readonly key: string;
  readonly token: bigint;
  readonly atMs: number;
}

/**
 * A span of true time in which a holder's process could not run: paused (a stop-the-world pause, which
 * holds its timers) or crashed (its memory, timers included, gone). `toMs` (exclusive) is the resume or
 * restart; absent when the run ended first.
 */
export interface HolderOutage {
  readonly holder: string;
  readonly kind: 'pause' | 'crash';
  readonly fromMs: number;
  readonly toMs?: number;
}

export interface ResourceSpec {
  readonly name: string;
  /** Fenced resources order writes by token (ADR-16); unfenced ones take whatever arrives. */
  readonly fenced: boolean;
}

/** One etcd cluster as the run's recorder saw it, for the audit-complete checker. */
export interface AuditedCluster {
  /** The world's name of it: GrantRecord.cluster of its grants. */
  readonly name: string;
  readonly clusterId: bigint;
  /** The recorded history begins after this revision (a restored cluster's snapshot revision; 1 for a fresh log). */
  readonly fromRevision: bigint;
  /** Every compaction the log applied: a gap in the audit must end at one. */
  readonly compactions: readonly bigint[];
  /** False once a restore replaced it: it took no more writes, and its audit is judged up to the last checkpoint. */
  readonly current: boolean;
}

/** What the audit tailer (ADR-21) stored during the run, beside what the log did. */
export interface AuditRun {
  readonly clusters: readonly AuditedCluster[];
  readonly records: readonly AuditRecord[];
  readonly gaps: readonly AuditGap[];
  readonly checkpoints: readonly AuditCheckpoint[];
  /** Replays that offered a different event under a stored event's (cluster, revision, key). */
  readonly conflicts: number;
  /** Tailer runs that ended on their own: a log that went backwards under the same cluster ID. */
  readonly stops: readonly { readonly reason: string; readonly clusterId?: bigint; readonly revision?: bigint }[];
  /** True time of the run's end. */
  readonly endedAtMs: number;
  /** How long a committed event may take to reach the store by the end of the run (a crash, an election, a flush). */
  readonly maxLagMs: number;
}

/**
 * One acquire-to-release of one task, as its workload saw it (the liveness checkers' "interest"): when the
 * task asked for the key, what it was answered, and when it gave the hold up. A task of a process that
 * crashed never hears back: its interest ends at the crash (the holder's outage).
 */
export interface Interest {
  /** The identity the hold goes to (several tasks of one process share it, ADR-10/13). */
  readonly holder: string;
  /** The task, for messages: `client-2/task-1`. */
  readonly task: string;
  readonly key: string;
  /** How long the acquire asked to wait in line (0: a try-lock). */
  readonly waitMs: number;
  /** True time the acquire was called. */
  readonly fromMs: number;
  /** True time its answer came back; absent when it never did. */
  readonly answeredMs?: number;
  /** `in-doubt`: answered `indeterminate` (it may or may not have been granted); `pending`: never answered. */
  readonly outcome: 'granted' | 'refused' | 'in-doubt' | 'pending';
  /** The refusal's or the in-doubt answer's code. */
  readonly code?: string;
  /** The granted hold's token. */
  readonly token?: bigint;
  /** True time the task called release (it no longer wanted the hold); absent while it still did. */
  readonly releasedMs?: number;
  /** The release's answer. */
  readonly release?: 'released' | 'not-released' | 'in-doubt' | 'failed' | 'pending';
  readonly releaseAnsweredMs?: number;
}

/**
 * A span of true time in which a fault may legitimately slow the service down (a pause, a crash, a cut,
 * a slow link, a stalled disk, a drain, a restore), with the time the service needs to recover from it
 * already added by the scenario. The liveness checkers excuse what happens inside one; faults the core
 * must absorb (a lossy watch, lost answers, drift within ADR-12's margin) are no disturbance.
 */
export interface Disturbance {
  readonly what: string;
  readonly fromMs: number;
  /** Exclusive; absent when it lasted to the end of the run. */
  readonly toMs?: number;
  /** True when a quorum of members stayed healthy and reachable throughout (one stuck member): no excuse for a fence. */
  readonly quorumHealthy: boolean;
}

/** The bounds the liveness checkers hold a run to. */
export interface LivenessBounds {
  /** The holds' TTL (ADR-11). */
  readonly ttlMs: number;
  /** The longest ADR-15 poll interval, jitter included. */
  readonly pollIntervalMs: number;
  /** Slack above each rule's own allowance (RPCs, a grant txn, the lease expiry scan). */
  readonly boundMs: number;
  /** True time the run ended: what is still open then is judged up to here. */
  readonly endedAtMs: number;
}

/** What the liveness checkers need: every task's interests, the run's disturbances and the bounds. */
export interface LivenessRun {
  readonly interests: readonly Interest[];
  readonly disturbances: readonly Disturbance[];
  readonly bounds: LivenessBounds;
}

export interface RunHistory {
  readonly grants: readonly GrantRecord[];
  readonly beliefs?: readonly BeliefInterval[];
  readonly writes?: readonly ResourceWrite[];
  /** Every resource named by a write must be declared here. */
  readonly resources?: readonly ResourceSpec[];
  /** The client-visible history (invoke/ok/fail/info), for the linearizability checker's lock model. */
  readonly events?: readonly HistoryEvent[];
  /** Every fence of a hold by its holder's library, for the deadline checker; its absence skips that checker. */
  readonly fences?: readonly FenceRecord[];
  /** When holders' processes could not run; the deadline checker excuses a late fence only then. */
  readonly outages?: readonly HolderOutage[];
  /** The audit tailer's store, when the run had one; its absence skips the audit-complete checker. */
  readonly audit?: AuditRun;
  /** The workload's interests and the run's disturbances; its absence skips the liveness checkers. */
  readonly liveness?: LivenessRun;
}

/** Describes one holder in a message: `holder a (token 5)`. */
export function holderLabel(grant: { readonly holder: string; readonly token: bigint }): string {
  return `holder ${grant.holder} (token ${grant.token})`;
}

export function compareBigints(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Groups items by a text key, keeping first-appearance order within a group; groups come out in key order. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
