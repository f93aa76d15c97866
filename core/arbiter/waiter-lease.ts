// Where a durable waiter's place lives (ADR-14 `fairness: durable`; issue 11, L5). A place is a /q key,
// and it must end when nobody waits in it any more. On the waiter's own session lease (etcd's recipe,
// ADR-14) it did not: an arbiter that shut down (it keeps its waiters' places, so they can come back
// through another replica) or a leave() that could not reach the log left a place that the session,
// renewed by the client for its other holds, kept first in line; the waiter behind it was told "the key
// stayed held" until its wait ran out, on a free key.
//
// So a place carries the liveness of the one waiting in it: the arbiter. Each arbiter puts its waiters'
// places on one waiting lease of its own (ADR-10's batching: one keepalive renews every place), renewed
// only while at least one of its waiters is in a durable line. When the arbiter stops (shut down,
// crashed, paused past the TTL) or has nobody waiting, the lease is no longer renewed and its places end
// within WAITER_LEASE_TTL_SECONDS; a waiter that comes back through another replica within that time
// re-puts its key, which keeps its create revision and so its place (durable-turn.ts).
//
// A place nobody waits in can also outlive its leave while the lease lives on for this arbiter's other
// waiters: a leave that could not reach the log, or a join's put copy that was still on its way and
// committed after the leave's delete (a copy sent through a slow member while the delete went through
// another one; issue 35, swarm seed 502794: the orphan stayed first in line for 13 s and every waiter
// behind it was told the key was held, on a free key). So at each renewal the arbiter sweeps its lease:
// it lists the keys on it and deletes every place none of its waiters holds now (a waiter holds its place
// from before its first put until it is out of the line). One rule for every way a place is orphaned.
import { CancelledError, type CancelSource } from '../cancel.js';
import { isLockError } from '../lock-error.js';
import type { Clock } from '../ports/clock.js';
import { WAITER_PREFIX } from '../lock-key.js';
import type { LeaseId } from '../units.js';
import { MS_PER_SECOND } from '../units.js';
import type { LogGateway } from './log-gateway.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS } from './log-retry.js';

/**
 * How long a place outlives its arbiter's last renewal: the platform's minimum TTL (ADR-11), so an
 * orphaned place ends within any session TTL, and a waiter whose arbiter died has that long to come back
 * through another replica and keep its place.
 */
export const WAITER_LEASE_TTL_SECONDS = 5;
/** Orphaned places deleted per renewal (TigerStyle: a limit on everything); the rest at the next renewal, or with the lease. */
const MAX_SWEPT_PER_RENEWAL = 100;

export interface WaiterLeaseDeps {
  readonly gateway: LogGateway;
  readonly clock: Clock;
  /** The arbiter's shutdown: renewals stop, and the places end with the lease (they are not deleted). */
  readonly shutdown: CancelSource;
}

export class WaiterLease {
  private granted: Promise<LeaseId> | undefined;
  private waiting = 0;
  private renewing = false;
  private sweeping = false;
  /** The places this arbiter's waiters hold now, by waiter key, with how many waiters share each (two tasks of one session do). */
  private readonly held = new Map<string, number>();

  constructor(private readonly deps: WaiterLeaseDeps) {}

  /** The lease to put a place on now: granted on first use, and again after the last one ended. */
  id(): Promise<LeaseId> {
    this.granted ??= this.deps.gateway.leaseGrant(WAITER_LEASE_TTL_SECONDS).then(
      (lease) => lease.id,
      (error: unknown) => {
        this.granted = undefined;
        throw error;
      },
    );
    return this.granted;
  }

  /** The lease `id` is gone (a put on it was refused, a keepalive found it expired): the next place gets a new one. */
  ended(id: LeaseId): void {
    void this.granted?.then((current) => {
      if (current === id) this.granted = undefined;
    }, () => undefined);
  }

  /**
   * A waiter enters a durable line, holding the place `waiterKey` (before its first put: the sweep never
   * deletes a place a waiter of this arbiter may be putting); call the returned function once when it is
   * out. The lease is renewed meanwhile.
   */
  enter(waiterKey: string): () => void {
    this.waiting += 1;
    this.held.set(waiterKey, (this.held.get(waiterKey) ?? 0) + 1);
    this.startRenewing();
    let out = false;
    return () => {
      if (out) return;
      out = true;
      this.waiting -= 1;
      const sharing = (this.held.get(waiterKey) ?? 1) - 1;
      if (sharing > 0) this.held.set(waiterKey, sharing);
      else this.held.delete(waiterKey);
    };
  }

  /** Deletes `waiterKey` if it is still the place this arbiter put on `lease` (a waiter that came back elsewhere owns it now). */
  async leave(waiterKey: string, lease: LeaseId): Promise<void> {
    try {
      // Safe to send twice, so a short deadline (log-retry.ts): a waiter that gave up is answered after
      // it, not after etcd's full deadline for a lost answer (issue 11, swarm seed 123); retried later.
      await this.deps.gateway.txn({ compare: [{ key: waiterKey, target: 'lease', op: '=', value: lease }], success: [{ type: 'delete', key: waiterKey }], failure: [], timeoutMs: IDEMPOTENT_REQUEST_TIMEOUT_MS });
    } catch (error) {
      // The sweep deletes it at a later renewal (its waiter no longer holds it), or it goes with the lease.
      if (!isLockError(error, 'unavailable') && !isLockError(error, 'indeterminate') && !isLockError(error, 'sealed')) throw error;
    }
  }

  private startRenewing(): void {
    if (this.renewing) return;
    this.renewing = true;
    void this.renewWhileWaited().finally(() => {
      this.renewing = false;
    });
  }

  private async renewWhileWaited(): Promise<void> {
    const periodMs = (WAITER_LEASE_TTL_SECONDS * MS_PER_SECOND) / 3;
    while (!this.deps.shutdown.aborted) {
      try {
        await this.deps.clock.sleep(periodMs, this.deps.shutdown.signal);
      } catch (error) {
        if (error instanceof CancelledError) return;
        throw error;
      }
      if (this.waiting === 0) {
        // Nobody waits: stop renewing. The lease, and any place a failed leave left on it, ends within its TTL.
        this.granted = undefined;
        return;
      }
      await this.renewOnce();
    }
  }

  private async renewOnce(): Promise<void> {
    const granted = this.granted;
    if (granted === undefined) return;
    let id: LeaseId;
    try {
      id = await granted;
    } catch {
      return; // the grant failed; the next place asks again
    }
    try {
      const answer = await this.deps.gateway.leaseKeepAlive(id);
      if (answer.ttlSeconds <= 0) return this.ended(id); // its places are gone: their waiters find that and take new ones
    } catch (error) {
      if (isLockError(error, 'session-expired')) this.ended(id); // lease-not-found, as the gateway names it
      // Otherwise unreachable or sealed: the next period tries again, and the TTL bounds the rest.
      return;
    }
    // Beside the renewals, never in front of them: a slow read or a hundred deletes must not let the lease,
    // and every place on it, expire. One sweep at a time; a renewal that finds one running skips its own.
    if (this.sweeping) return;
    this.sweeping = true;
    void this.sweep(id).finally(() => {
      this.sweeping = false;
    });
  }

  /** Deletes the places on `lease` that none of this arbiter's waiters holds (the header says why). */
  private async sweep(lease: LeaseId): Promise<void> {
    let keys: readonly string[];
    try {
      keys = (await this.deps.gateway.leaseKeys(lease)).keys;
    } catch {
      return; // unreachable or sealed: the next renewal sweeps again
    }
    const orphans = keys.filter((key) => key.startsWith(WAITER_PREFIX) && !this.held.has(key)).slice(0, MAX_SWEPT_PER_RENEWAL);
    // Still unheld when its delete is sent: a waiter may have entered meanwhile; and the delete compares the
    // lease, so a place a waiter re-put through another replica (on that replica's lease) is not touched.
    for (const key of orphans) if (!this.held.has(key)) await this.leave(key, lease);
  }
}
