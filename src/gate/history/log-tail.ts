// The log's own record of a gate run (issue 15, ADR-21): a watch of the whole lock key space from
// revision 1 with previous values, read through the audit interpreter (core/audit/interpret.ts, the one
// reading of the log), each revision stamped with the gate's clock when the watch delivered it. The
// watch dials the members directly, not through the link mesh, so a partition does not cut the gate's
// own view; a member killed or paused under it ends the watch, which starts again where it stopped.
import { FRESH_LOG_STATE, type InterpreterState, interpretRevision } from '../../../core/audit/interpret.js';
import type { HoldEndKind } from '../../../core/audit/events.js';
import type { LockLog, Watch, WatchEvent } from '../../../core/ports/lock-log.js';
import { revision as toRevision } from '../../../core/units.js';
import { createEtcdLockLog } from '../../etcd/index.js';
import type { LogEnd } from './log-events.js';

const REWATCH_AFTER_MS = 200;

export interface LogGrant {
  readonly key: string;
  readonly token: bigint;
  readonly identity: string;
  readonly session: bigint | undefined;
  readonly revision: bigint;
  readonly seenAtMs: number;
  end?: { readonly revision: bigint; readonly kind: HoldEndKind; readonly seenAtMs: number };
}

export class LogTail {
  readonly grants: LogGrant[] = [];
  private readonly byHold = new Map<string, LogGrant>();
  private state: InterpreterState = FRESH_LOG_STATE;
  private lastRevision = 0n;
  private watch: Watch | undefined;
  private stopped = false;
  private readonly log: LockLog;
  private restarts = 0;
  /** Hold ends the interpreter could not tie to a grant of this run, and revisions it could not explain. */
  readonly problems: string[] = [];

  constructor(
    endpoints: readonly string[],
    private readonly now: () => number,
  ) {
    this.log = createEtcdLockLog({ endpoints: [...endpoints], requestTimeoutMs: 2_000 });
  }

  get revision(): bigint {
    return this.lastRevision;
  }

  get watchRestarts(): number {
    return this.restarts;
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    try {
      this.watch = await this.log.watch(
        { key: '', prefix: true, startRevision: toRevision(this.lastRevision + 1n), prevKv: true },
        {
          onEvents: (batch) => this.take(batch.events),
          onError: () => this.again(),
        },
      );
    } catch {
      this.again();
    }
  }

  /** Resolves once the watch has delivered `revision` (or `limitMs` passed: false). */
  async caughtUp(limitMs: number): Promise<boolean> {
    const target = (await this.log.status().catch(() => undefined))?.header.revision;
    const until = this.now() + limitMs;
    while (target !== undefined && this.lastRevision < target && this.now() < until) await new Promise((r) => setTimeout(r, 50));
    return target !== undefined && this.lastRevision >= target;
  }

  ends(): LogEnd[] {
    return this.grants.flatMap((g) => (g.end === undefined ? [] : [{ key: g.key, token: g.token, kind: g.end.kind, revision: g.end.revision, seenAtMs: g.end.seenAtMs }]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.watch?.cancel().catch(() => undefined);
    await this.log.close().catch(() => undefined);
  }

  private again(): void {
    if (this.stopped) return;
    this.restarts += 1;
    this.watch = undefined;
    setTimeout(() => void this.start(), REWATCH_AFTER_MS);
  }

  private take(events: readonly WatchEvent[]): void {
    const seenAtMs = this.now();
    // A batch is one revision as etcd sends it; grouped again here so the interpreter always gets whole revisions.
    const revisions = new Map<bigint, WatchEvent[]>();
    for (const event of events) revisions.set(event.kv.modRevision, [...(revisions.get(event.kv.modRevision) ?? []), event]);
    for (const [rev, revEvents] of [...revisions].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (rev <= this.lastRevision) continue; // delivered again after a re-watch
      const read = interpretRevision(this.state, toRevision(rev), revEvents);
      this.state = read.state;
      this.lastRevision = rev;
      for (const event of read.events) {
        if (event.kind === 'grant' && event.token !== undefined) {
          const grant: LogGrant = { key: event.key, token: event.token, identity: event.identity ?? '?', session: event.sessionId, revision: rev, seenAtMs };
          this.grants.push(grant);
          this.byHold.set(`${event.key} ${event.grantRevision}`, grant);
        } else if (event.kind === 'release' || event.kind === 'expiry' || event.kind === 'force-release' || event.kind === 'epoch-advance' || event.kind === 'unexplained') {
          const grant = this.byHold.get(`${event.key} ${event.grantRevision}`);
          if (grant === undefined) this.problems.push(`revision ${rev}: the ${event.kind} of a hold of ${event.key} granted at revision ${String(event.grantRevision)}, which this run never saw granted`);
          else grant.end = { revision: rev, kind: event.kind, seenAtMs };
          if (event.kind === 'unexplained') this.problems.push(`revision ${rev}: a hold of ${event.key} ended, and nothing in the revision says why (unexplained)`);
        } else if (event.kind === 'holder-rewrite') {
          this.problems.push(`revision ${rev}: the holder key of ${event.key} was rewritten, which lockstep never does`);
        }
      }
    }
  }
}
