// Which etcd member a call goes to. All calls go to one "current" member; a call that could not even be
// sent (no connection) moves on to the next member at once, while one that may have reached etcd is
// never retried here (a retried write could apply twice): it fails with its outcome, and the next call
// starts from the next member. The exception is a call that is safe to send twice, a lease keepalive (it
// renews; it writes no log entry) or a read: runHedged asks the next member too when the current one is
// slow, so that one stuck member cannot hold a renewal, or the read before one, for a whole request
// timeout (issue 11 L6, issue 35). The rule is core/ports/hedge.ts, which the simulator's client uses too.
import type { Etcd3 } from 'etcd3';
import { hedgedCall, type HedgeTimers } from '../../core/ports/hedge.js';
import type { LockLogError } from '../../core/ports/lock-log-error.js';
import { AttemptAbandon, type AttemptSignal } from './attempt-signal.js';
import { toLockLogError, wasNeverSent } from './error-mapping.js';
import type { EtcdClientTls } from './etcd-tls.js';
import { createMemberClient, normaliseEndpoint } from './member-client.js';

/** Per-call gRPC options: the deadline covers the whole call, failovers included. */
export interface CallOptions {
  readonly deadline: Date;
  /** Aborted when the call's answer is no longer wanted (another member answered a hedged call first). */
  readonly signal?: AttemptSignal;
}

/** How a call safe to send twice is spread over members (runHedged). */
export interface HedgeSpec {
  /** Ask the next member too when the last one asked has not answered in this long. */
  readonly hedgeAfterMs: number;
  /** Deadline of the whole call, every member's attempt included. */
  readonly timeoutMs: number;
}

/** The host's timers, for the hedge (a delay beyond setTimeout's limit never fires: the hedge that never comes). */
const HOST_TIMERS: HedgeTimers = {
  now: () => Date.now(),
  after: (ms, fire) => {
    if (!(ms < MAX_TIMER_MS)) return () => undefined;
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

export interface CallSpec {
  readonly operation: string;
  readonly mutates: boolean;
  /** A deadline shorter than the set's request timeout, for this call only (TxnRequest.timeoutMs). */
  readonly timeoutMs?: number;
}

// Codes after which this member is probably cut off; the next call tries another one.
const MOVE_ON_CODES: ReadonlySet<LockLogError['code']> = new Set(['unavailable', 'timeout', 'not-leader']);
/** setTimeout's limit (2^31 - 1 ms); a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class EndpointSet {
  private readonly members: ReadonlyArray<{ readonly endpoint: string; readonly client: Etcd3 }>;
  private current = 0;

  constructor(
    endpoints: readonly string[],
    private readonly requestTimeoutMs: number,
    tls?: EtcdClientTls,
  ) {
    if (endpoints.length === 0) throw new Error('createEtcdLockLog needs at least one endpoint');
    this.members = endpoints.map((endpoint) => ({ endpoint: normaliseEndpoint(endpoint, tls), client: createMemberClient(endpoint, tls) }));
  }

  get currentEndpoint(): string {
    return this.member(this.current).endpoint;
  }

  /** How long a call may take: the request timeout, or the call's own shorter one. */
  timeoutOf(timeoutMs?: number): number {
    return timeoutMs !== undefined && timeoutMs > 0 && timeoutMs < this.requestTimeoutMs ? timeoutMs : this.requestTimeoutMs;
  }

  /** The deadline of a call starting now (timeoutOf). */
  deadline(timeoutMs?: number): Date {
    return new Date(Date.now() + this.timeoutOf(timeoutMs));
  }

  /** Runs `call` on the current member, failing over only while nothing has been sent. */
  async run<T>(spec: CallSpec, call: (client: Etcd3, options: CallOptions, endpoint: string) => Promise<T>): Promise<T> {
    const options = { deadline: this.deadline(spec.timeoutMs) };
    for (let attempt = 1; ; attempt++) {
      const index = this.current;
      const { client, endpoint } = this.member(index);
      try {
        return await call(client, options, endpoint);
      } catch (error) {
        const mapped = toLockLogError(error, { description: `${spec.operation} on ${endpoint}`, mutates: spec.mutates });
        if (MOVE_ON_CODES.has(mapped.code)) this.moveOn(index);
        const canFailOver = wasNeverSent(error) && attempt < this.members.length && Date.now() < options.deadline.getTime();
        if (!canFailOver) throw mapped;
      }
    }
  }

  /**
   * Runs `call`, which must be safe to send twice, on the current member and, when it is slow or fails, on
   * the next ones too, by the hedge rule (core/ports/hedge.ts hedgedCall); the member that answers first
   * becomes current for every later call.
   */
  async runHedged<T>(spec: CallSpec, call: (client: Etcd3, options: CallOptions, endpoint: string) => Promise<T>, hedge: HedgeSpec): Promise<T> {
    const plan = { members: this.members.length, first: this.current, hedgeAfterMs: hedge.hedgeAfterMs, timeoutMs: hedge.timeoutMs };
    const { value, member } = await hedgedCall(plan, HOST_TIMERS, (index, leftMs) => {
      const attempt = new AttemptAbandon();
      const { client, endpoint } = this.member(index);
      const answer = call(client, { deadline: new Date(Date.now() + leftMs), signal: attempt }, endpoint).catch((error: unknown) => {
        const mapped = toLockLogError(error, { description: `${spec.operation} on ${endpoint}`, mutates: spec.mutates });
        if (MOVE_ON_CODES.has(mapped.code) && !attempt.aborted) this.moveOn(index); // an abandoned attempt says nothing of its member
        throw mapped;
      });
      return { answer, abandon: () => attempt.abort() };
    });
    this.current = member;
    return value;
  }

  /** The next call goes to the member after `failedIndex`, unless another call already moved on. */
  moveOn(failedIndex: number): void {
    if (this.current === failedIndex) this.current = (failedIndex + 1) % this.members.length;
  }

  close(): void {
    for (const { client } of this.members) client.close();
  }

  private member(index: number): { readonly endpoint: string; readonly client: Etcd3 } {
    const found = this.members[index];
    if (found === undefined) throw new Error(`no endpoint ${index}`);
    return found;
  }
}
