// Which etcd member a call goes to. All calls go to one "current" member; a call that could not even be
// sent (no connection) moves on to the next member at once, while one that may have reached etcd is
// never retried here (a retried write could apply twice): it fails with its outcome, and the next call
// starts from the next member.
import type { Etcd3 } from 'etcd3';
import type { LockLogError } from '../../core/ports/lock-log-error.js';
import { toLockLogError, wasNeverSent } from './error-mapping.js';
import { createMemberClient, normaliseEndpoint } from './member-client.js';

/** Per-call gRPC options: the deadline covers the whole call, failovers included. */
export interface CallOptions {
  readonly deadline: Date;
}

export interface CallSpec {
  readonly operation: string;
  readonly mutates: boolean;
}

// Codes after which this member is probably cut off; the next call tries another one.
const MOVE_ON_CODES: ReadonlySet<LockLogError['code']> = new Set(['unavailable', 'timeout', 'not-leader']);

export class EndpointSet {
  private readonly members: ReadonlyArray<{ readonly endpoint: string; readonly client: Etcd3 }>;
  private current = 0;

  constructor(
    endpoints: readonly string[],
    private readonly requestTimeoutMs: number,
  ) {
    if (endpoints.length === 0) throw new Error('createEtcdLockLog needs at least one endpoint');
    this.members = endpoints.map((endpoint) => ({ endpoint: normaliseEndpoint(endpoint), client: createMemberClient(endpoint) }));
  }

  get currentEndpoint(): string {
    return this.member(this.current).endpoint;
  }

  deadline(): Date {
    return new Date(Date.now() + this.requestTimeoutMs);
  }

  /** Runs `call` on the current member, failing over only while nothing has been sent. */
  async run<T>(spec: CallSpec, call: (client: Etcd3, options: CallOptions, endpoint: string) => Promise<T>): Promise<T> {
    const options = { deadline: this.deadline() };
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
