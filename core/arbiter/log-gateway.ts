// Every call the arbiter makes to the lock log goes through here, so that every response header is
// checked against the seal (ADR-03) and no LockLogError leaks out of the arbiter as anything but a
// typed LockError (STYLE.md: an RPC that can time out has an `indeterminate` outcome).
import { LockError } from '../lock-error.js';
import { isLockLogError, type LockLogErrorCode } from '../ports/lock-log-error.js';
import {
  isReadOnlyTxn,
  type LeaseGrantResponse,
  type LeaseKeepAliveResponse,
  type LeaseTimeToLiveResponse,
  type LockLog,
  type RangeRequest,
  type RangeResponse,
  type ResponseHeader,
  type TxnRequest,
  type TxnResponse,
  type Watch,
  type WatchHandlers,
  type WatchRequest,
} from '../ports/lock-log.js';
import type { LeaseId } from '../units.js';
import type { SealGuard } from './seal-guard.js';
import { WriteConfirmation, suspectsConnection } from './write-confirmation.js';

/** Error codes the caller handles itself, passed through as LockLogError. */
export type PassThrough = readonly LockLogErrorCode[];

interface CallOptions {
  /** The header revision is linearizable: apply the revision-regression rule. */
  readonly linearizable: boolean;
  /** Epoch advance is the one operation a sealed arbiter performs. */
  readonly whileSealed?: boolean;
  readonly passThrough?: PassThrough;
  /** It writes to the log: confirm the cluster first on a new connection (write-confirmation.ts). */
  readonly writes?: boolean;
  /**
   * Asked just before the request is sent, after any confirmation read (which can take etcd's whole
   * deadline, several times): false, and nothing is sent, the call is refused as `unavailable`. A grant
   * whose caller's wait is long over must not be sent (issue 11, swarm seed 1605).
   */
  readonly stillWanted?: () => boolean;
}

export class LogGateway {
  private confirmation: WriteConfirmation | undefined;
  private failureListener: ((error: unknown) => void) | undefined;

  constructor(
    private readonly log: LockLog,
    private readonly guard: SealGuard,
  ) {}

  /**
   * From now on every write on a new connection or after a failed call waits for `confirm`, a
   * linearizable read that seals on a restored or foreign cluster, so a restored log never takes a write
   * before the arbiter has seen it (ADR-03, issue 19). The arbiter wires it; its seams can leave it out.
   */
  confirmWritesWith(confirm: () => Promise<unknown>, sleep: (ms: number) => Promise<void>): void {
    this.confirmation = new WriteConfirmation(() => this.log.connectionGeneration?.() ?? 0, confirm, sleep);
  }

  /** Told of every call the log failed (ADR-04: fail-open.ts watches for a lost majority). */
  reportFailuresTo(listener: (error: unknown) => void): void {
    this.failureListener = listener;
  }

  /** An epoch advance answered: that linearizable write confirmed the cluster it now binds. */
  confirmedByAdvance(): void {
    this.confirmation?.confirmedNow();
  }

  txn(request: TxnRequest, options: Partial<CallOptions> = {}): Promise<TxnResponse> {
    const writes = !isReadOnlyTxn(request);
    return this.call(() => this.log.txn(request), { linearizable: true, writes, ...options });
  }

  range(request: RangeRequest, options: Partial<CallOptions> = {}): Promise<RangeResponse> {
    return this.call(() => this.log.range(request), { linearizable: request.serializable !== true, ...options });
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.call(() => this.log.leaseGrant(ttlSeconds), { linearizable: true, writes: true });
  }

  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    // A keepalive is answered by the leader without a Raft entry, its header filled before the renew
    // (etcd-behaviour.md §2.1): not linearizable, so only the cluster-ID rule applies.
    return this.call(() => this.log.leaseKeepAlive(id), { linearizable: false });
  }

  /** A lease's time to live and the keys on it (a read: the waiting lease's sweep, waiter-lease.ts): the cluster-ID rule only, as a keepalive. */
  leaseKeys(id: LeaseId): Promise<LeaseTimeToLiveResponse> {
    return this.call(() => this.log.leaseTimeToLive(id, { keys: true }), { linearizable: false });
  }

  leaseRevoke(id: LeaseId, passThrough: PassThrough = []): Promise<{ readonly header: ResponseHeader }> {
    return this.call(() => this.log.leaseRevoke(id), { linearizable: true, writes: true, passThrough });
  }

  /** Watch headers come from whichever member serves the stream: cluster-ID rule only. */
  async watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    return this.call(
      () =>
        this.log.watch(request, {
          onEvents: (batch) => {
            try {
              this.guard.observe(batch.header, undefined);
            } catch {
              return; // sealed: a hint from a foreign log must not wake anyone
            }
            handlers.onEvents(batch);
          },
          onError: (error) => {
            this.confirmation?.suspect(); // the stream broke: the server may be another one now
            handlers.onError(error);
          },
        }),
      { linearizable: false },
    );
  }

  private async call<T extends { readonly header: ResponseHeader }>(send: () => Promise<T>, options: CallOptions): Promise<T> {
    if (options.whileSealed !== true) this.guard.assertOpen();
    if (options.writes === true && options.whileSealed !== true) await this.confirmation?.beforeWrite();
    if (options.stillWanted?.() === false) throw new LockError('unavailable', 'the log answered too slowly before this request could be sent, and it is no longer wanted; nothing was sent; retry');
    const floor = options.linearizable ? this.guard.floor() : undefined;
    let response: T;
    try {
      response = await send();
    } catch (error) {
      if (!isLockLogError(error) || suspectsConnection(error.code)) this.confirmation?.suspect();
      this.failureListener?.(error);
      if (isLockLogError(error) && options.passThrough?.includes(error.code)) throw error;
      throw toLockError(error);
    }
    if (options.whileSealed === true) return response;
    this.guard.observe(response.header, floor);
    return response;
  }
}

export function toLockError(error: unknown): LockError {
  if (error instanceof LockError) return error;
  if (isLockLogError(error)) {
    if (error.code === 'lease-not-found') {
      return new LockError('session-expired', 'the session lease is gone (expired or revoked); open a new session', { cause: error });
    }
    if (error.outcome === 'indeterminate') {
      return new LockError('indeterminate', `the lock log did not answer in time (${error.message}); the operation may or may not have happened: inspect the key before retrying`, { cause: error });
    }
    return new LockError('unavailable', `the lock log refused or could not be reached (${error.message}); nothing happened, retry later`, { cause: error });
  }
  return new LockError('unavailable', `unexpected failure talking to the lock log: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
