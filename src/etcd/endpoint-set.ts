// Which etcd member a call goes to. All calls go to one "current" member; a call that could not even be
// sent (no connection) moves on to the next member at once, while one that may have reached etcd is
// never retried here (a retried write could apply twice): it fails with its outcome, and the next call
// starts from the next member. The exception is a call that is safe to apply twice, a lease keepalive
// (it renews; it writes no log entry): runHedged asks the next member too when the current one is slow,
// so that one stuck member cannot hold a renewal for a whole request timeout (issue 11 L6).
import type { Etcd3 } from 'etcd3';
import { KEEPALIVE_DEFINITIVE_CODES } from '../../core/ports/keepalive-hedge.js';
import type { LockLogError } from '../../core/ports/lock-log-error.js';
import { toLockLogError, wasNeverSent } from './error-mapping.js';
import type { EtcdClientTls } from './etcd-tls.js';
import { createMemberClient, normaliseEndpoint } from './member-client.js';

/** Per-call gRPC options: the deadline covers the whole call, failovers included. */
export interface CallOptions {
  readonly deadline: Date;
  /** Aborted when the call's answer is no longer wanted (another member answered a hedged call first). */
  readonly signal?: AbortSignal;
}

/** How a call safe to apply twice is spread over members (runHedged). */
export interface HedgeSpec {
  /** Ask the next member too when the last one asked has not answered in this long. */
  readonly hedgeAfterMs: number;
  /** Deadline of the whole call, every member's attempt included. */
  readonly timeoutMs: number;
}

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

  /** The deadline of a call starting now: the request timeout, or the call's own shorter one. */
  deadline(timeoutMs?: number): Date {
    const ms = timeoutMs !== undefined && timeoutMs > 0 && timeoutMs < this.requestTimeoutMs ? timeoutMs : this.requestTimeoutMs;
    return new Date(Date.now() + ms);
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
   * Runs `call`, which must be safe to apply twice, on the current member; when that member has not
   * answered within `hedgeAfterMs`, or failed, on the next member as well, and so on until every member
   * has been asked. The first answer wins, the others are cancelled, and the member that gave it becomes
   * current for every later call. Fails when every member asked has failed, or at the deadline.
   */
  runHedged<T>(spec: CallSpec, call: (client: Etcd3, options: CallOptions, endpoint: string) => Promise<T>, hedge: HedgeSpec): Promise<T> {
    const deadline = new Date(Date.now() + hedge.timeoutMs);
    const first = this.current;
    return new Promise<T>((resolve, reject) => {
      const attempts: AbortController[] = [];
      let failures = 0;
      let settled = false;
      let hedgeTimer: NodeJS.Timeout | undefined;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(hedgeTimer);
        for (const attempt of attempts) attempt.abort();
        finish();
      };
      const askNext = (): boolean => {
        if (settled || attempts.length >= this.members.length || Date.now() >= deadline.getTime()) return false;
        const index = (first + attempts.length) % this.members.length;
        const attempt = new AbortController();
        attempts.push(attempt);
        const { client, endpoint } = this.member(index);
        clearTimeout(hedgeTimer);
        if (hedge.hedgeAfterMs < MAX_TIMER_MS) hedgeTimer = setTimeout(askNext, hedge.hedgeAfterMs); // Infinity: no hedge
        call(client, { deadline, signal: attempt.signal }, endpoint).then(
          (value) =>
            settle(() => {
              this.current = index;
              resolve(value);
            }),
          (error: unknown) => {
            if (settled) return;
            failures += 1;
            const mapped = toLockLogError(error, { description: `${spec.operation} on ${endpoint}`, mutates: spec.mutates });
            if (MOVE_ON_CODES.has(mapped.code)) this.moveOn(index);
            if (KEEPALIVE_DEFINITIVE_CODES.has(mapped.code)) return settle(() => reject(mapped));
            // A member that failed is replaced at once; when none is left to ask, the last failure is the answer.
            if (!askNext() && failures === attempts.length) settle(() => reject(mapped));
          },
        );
        return true;
      };
      askNext();
    });
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
