// One lock.v1 KeepAlive stream per session (lock.proto: "one stream per session, each request one
// renewal, answered in order"). The client library renews every TTL/3 (ADR-12); opening a stream per
// renewal would cost an HTTP/2 stream setup each time and thousands of short streams per second at
// ADR-18's session counts. A renewal writes one request into the open stream and takes the next answer.
// A stream that fails, ends, or leaves a renewal unanswered past its deadline is torn down and every
// renewal waiting on it fails `unavailable`; the next renewal opens a new one (possibly on another
// arbiter: sessions are etcd leases, any arbiter renews any session).
import { LockError } from '../../core/lock-error.js';

export interface KeepAliveAnswer {
  readonly ttlSeconds: number;
}

/** Opens the bidirectional stream: requests are read lazily, answers come in order. */
export type OpenKeepAlive<Request> = (requests: AsyncIterable<Request>, signal: AbortSignal) => AsyncIterable<KeepAliveAnswer>;

interface Pending {
  resolve(answer: KeepAliveAnswer): void;
  reject(error: unknown): void;
}

/** Most renewals one stream holds unanswered: the client sends one per TTL/3, so more is a stuck arbiter. */
const MAX_PENDING = 8;

export class KeepAliveStream<Request> {
  private readonly queued: Request[] = [];
  private readonly pending: Pending[] = [];
  private wakeWriter: (() => void) | undefined;
  private readonly abort = new AbortController();
  private ended = false;

  constructor(open: OpenKeepAlive<Request>) {
    void this.read(open(this.requests(), this.abort.signal));
  }

  get closed(): boolean {
    return this.ended;
  }

  renew(request: Request, timeoutMs: number): Promise<KeepAliveAnswer> {
    if (this.ended) return Promise.reject(new LockError('unavailable', 'the keepalive stream is closed'));
    if (this.pending.length >= MAX_PENDING) return Promise.reject(new LockError('unavailable', `the keepalive stream has ${MAX_PENDING} renewals unanswered`));
    return new Promise<KeepAliveAnswer>((resolve, reject) => {
      const timer = setTimeout(() => this.close(new LockError('unavailable', `no keepalive answer in ${timeoutMs} ms`)), timeoutMs);
      this.pending.push({
        resolve: (answer) => (clearTimeout(timer), resolve(answer)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      this.queued.push(request);
      this.wakeWriter?.();
    });
  }

  /** Ends the stream; renewals still waiting fail with `why`. */
  close(why: unknown = new LockError('unavailable', 'the keepalive stream was closed')): void {
    if (this.ended) return;
    this.ended = true;
    this.abort.abort();
    this.wakeWriter?.();
    for (const waiting of this.pending.splice(0)) waiting.reject(why);
  }

  private async *requests(): AsyncIterable<Request> {
    while (!this.ended) {
      const next = this.queued.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      await new Promise<void>((wake) => (this.wakeWriter = wake));
      this.wakeWriter = undefined;
    }
  }

  private async read(answers: AsyncIterable<KeepAliveAnswer>): Promise<void> {
    try {
      for await (const answer of answers) {
        const waiting = this.pending.shift();
        if (waiting === undefined) throw new LockError('unavailable', 'the arbiter answered a keepalive that was not sent');
        waiting.resolve(answer);
      }
      this.close(new LockError('unavailable', 'the keepalive stream ended'));
    } catch (error) {
      this.close(error);
    }
  }
}
