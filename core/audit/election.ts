// One audit tailer per cluster (ADR-21): an election by etcd's concurrency recipe (client/v3/concurrency
// election.go). Each candidate puts a key under a prefix on its own lease; the candidate whose key has the
// lowest create revision leads; every other one watches only its predecessor's key, so a leader's exit
// wakes one candidate, not all. The leader keeps its lease alive and believes it leads only until the send
// time of its last renewal plus the TTL minus a margin (ADR-12's deadline), so a leader that was paused or
// cut off stops writing before its lease can expire and another take over.
//
// ADR-21 elects on the coord cluster; here the election runs on the tailed cluster itself, under a prefix
// outside lockstep's key spaces (init-log.ts LOCKSTEP_PREFIXES), so a tailer started before `lockstep init`
// does not make the log look used.
import { type CancelSignal, CancelSource, CancelledError, onCancel } from '../cancel.js';
import type { Clock } from '../ports/clock.js';
import type { KeyValue, LockLog } from '../ports/lock-log.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import { MS_PER_SECOND, type LeaseId, type Revision, revision as toRevision } from '../units.js';

export const AUDIT_ELECTION_PREFIX = '/e/audit-tailer/';
export const DEFAULT_ELECTION_TTL_SECONDS = 10;
/** ADR-12's margin: a leader stops believing one second before its lease could expire. */
const BELIEF_MARGIN_MS = 1_000;
/** How often a waiting candidate looks at the line itself, whatever its watch says (ADR-15's poll, 1 s). */
const PREDECESSOR_POLL_MS = 1_000;
/** Looks at the line in one campaign before starting over (TigerStyle: a maximum on every loop): days of polls. */
const MAX_WAITS = 1_000_000;

export interface CampaignOptions {
  readonly log: LockLog;
  readonly clock: Clock;
  /** Shown in the candidate key's value: who this is (host and pid, the simulated process). */
  readonly candidate: string;
  readonly ttlSeconds?: number;
  readonly prefix?: string;
  readonly signal: CancelSignal;
  /** Called once the candidate waits behind another, with the leader's value. */
  readonly onWaiting?: (leader: string) => void;
}

export interface Leadership {
  readonly key: string;
  readonly leaseId: LeaseId;
  /** Fires once leadership may be lost: a renewal failed, the lease is gone, or resign() was called. */
  readonly lost: CancelSignal;
  /** True while this candidate may act as leader: not lost and before its belief deadline. */
  holds(): boolean;
  /** Gives leadership up (revokes the lease, so the next candidate leads at once). */
  resign(): Promise<void>;
}

/** Resolves once this candidate leads; rejects with CancelledError on `signal`, LockLogError when the log fails. */
export async function campaign(options: CampaignOptions): Promise<Leadership> {
  const { log, signal } = options;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_ELECTION_TTL_SECONDS;
  const prefix = options.prefix ?? AUDIT_ELECTION_PREFIX;
  const sentMs = options.clock.now();
  const lease = await log.leaseGrant(ttlSeconds);
  // Renewed from the start: a candidate waits in line for as long as the leader lives (etcd's Session does the same).
  const keeper = new LeaseKeeper(log, options.clock, lease.id, ttlSeconds, sentMs);
  const key = `${prefix}${lease.id.toString(16)}`;
  try {
    const put = await log.txn({
      compare: [{ key, target: 'create', op: '=', value: 0n }],
      success: [{ type: 'put', key, value: options.candidate, lease: lease.id }],
      failure: [],
    });
    // A fresh lease's key cannot exist: a failed compare is someone else writing under our lease id.
    if (!put.succeeded) throw new Error(`audit election: ${key} already exists under a lease granted just now`);
    const mine = put.header.revision;
    for (let waits = 0; waits < MAX_WAITS; waits += 1) {
      if (signal.aborted) throw new CancelledError('the campaign was stopped');
      if (keeper.lost.aborted) throw new CancelledError(`the candidate's lease ${lease.id} was lost while it waited`);
      const candidates = await log.range({ key: prefix, prefix: true });
      if (!candidates.kvs.some((kv) => kv.key === key)) throw new CancelledError(`the candidate key ${key} is gone (its lease expired while campaigning)`);
      const predecessor = predecessorOf(candidates.kvs, mine);
      if (predecessor === undefined) return keeper.leadership(key, signal);
      if (waits === 0) options.onWaiting?.(leaderOf(candidates.kvs)?.value ?? predecessor.value);
      await deletedOrChanged(log, options.clock, predecessor.key, toRevision(candidates.header.revision + 1n), [signal, keeper.lost]);
    }
    throw new CancelledError(`the campaign waited behind ${MAX_WAITS} predecessors; starting over`);
  } catch (error) {
    keeper.stop();
    await log.leaseRevoke(lease.id).catch(() => undefined);
    throw error;
  }
}

/** The candidate just ahead of `mine`: the highest create revision below it. */
function predecessorOf(kvs: readonly KeyValue[], mine: Revision): KeyValue | undefined {
  let best: KeyValue | undefined;
  for (const kv of kvs) if (kv.createRevision < mine && (best === undefined || kv.createRevision > best.createRevision)) best = kv;
  return best;
}

function leaderOf(kvs: readonly KeyValue[]): KeyValue | undefined {
  let first: KeyValue | undefined;
  for (const kv of kvs) if (first === undefined || kv.createRevision < first.createRevision) first = kv;
  return first;
}

/**
 * Waits until `key` is deleted (or the watch ends, or it could not start, or a poll interval passes: then
 * the caller looks again). The poll is ADR-15's fallback for the same reason: a watch can stay open and
 * lose its events (a stuck member takes the stream and answers nothing), and the candidate behind a
 * crashed tailer then waited for ever, the audit silent for the rest of the run (issue 11, swarm seed 2836).
 */
async function deletedOrChanged(log: LockLog, clock: Clock, key: string, from: Revision, signals: readonly CancelSignal[]): Promise<void> {
  let done: () => void = () => {};
  const ended = new Promise<void>((resolve) => (done = resolve));
  const watch = await log.watch({ key, startRevision: from }, { onEvents: (batch) => batch.events.some((e) => e.type === 'delete') && done(), onError: () => done() }).catch(() => undefined);
  if (watch === undefined) return;
  const poll = new CancelSource();
  void clock.sleep(PREDECESSOR_POLL_MS, poll.signal).then(done, () => undefined);
  const detach = [...signals.map((signal) => onCancel(signal, done)), () => poll.cancel()];
  try {
    await ended;
  } finally {
    for (const d of detach) d();
    await watch.cancel().catch(() => undefined);
  }
}

/**
 * Keeps the candidate's lease alive every TTL/3, and knows until when the lease surely lives: the send time
 * of the last answered renewal plus the TTL it answered, less ADR-12's margin.
 */
class LeaseKeeper {
  readonly lost = new CancelSource();
  private deadlineMs: number;

  constructor(
    private readonly log: LockLog,
    private readonly clock: Clock,
    private readonly leaseId: LeaseId,
    private readonly ttlSeconds: number,
    grantSentMs: number,
  ) {
    this.deadlineMs = grantSentMs + ttlSeconds * MS_PER_SECOND - BELIEF_MARGIN_MS;
    void this.renew().catch(() => this.lost.cancel());
  }

  holds(): boolean {
    return !this.lost.aborted && this.clock.now() < this.deadlineMs;
  }

  stop(): void {
    this.lost.cancel();
  }

  leadership(key: string, signal: CancelSignal): Leadership {
    onCancel(signal, () => this.lost.cancel());
    return {
      key,
      leaseId: this.leaseId,
      lost: this.lost,
      holds: () => this.holds(),
      resign: async () => {
        this.lost.cancel();
        await this.log.leaseRevoke(this.leaseId).catch(() => undefined);
      },
    };
  }

  private async renew(): Promise<void> {
    const ttlMs = this.ttlSeconds * MS_PER_SECOND;
    while (!this.lost.aborted) {
      try {
        await this.clock.sleep(ttlMs / 3, this.lost);
      } catch (error) {
        if (error instanceof CancelledError) return;
        throw error;
      }
      const sentMs = this.clock.now();
      try {
        const answer = await this.log.leaseKeepAlive(this.leaseId);
        if (answer.ttlSeconds <= 0) return this.lost.cancel(); // the lease expired: another candidate may lead
        this.deadlineMs = sentMs + answer.ttlSeconds * MS_PER_SECOND - BELIEF_MARGIN_MS;
      } catch (error) {
        if (isLockLogError(error, 'lease-not-found')) return this.lost.cancel();
        // Unanswered: keep trying until the belief deadline passes.
        if (this.clock.now() >= this.deadlineMs) return this.lost.cancel();
      }
    }
  }
}
