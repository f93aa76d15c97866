// A member's live gRPC connection survives a call that failed on it (issue 32).
//
// etcd3's ConnectionPool.withConnection closes ALL of a host's gRPC clients (KV, Lease, Watch, ...) after
// any "recoverable" error, DEADLINE_EXCEEDED and CANCELLED included. A write copy that waits out its
// deadline at a live follower (forwarded to a dead leader and lost: IDEMPOTENT_REQUEST_TIMEOUT_MS,
// core/arbiter/log-retry.ts) therefore tore down a healthy connection, and the next call to that member
// opened a new one (TCP + HTTP/2 + TLS in production): measured on a real 3-member etcd after a leader
// kill, the next call's local port changed and it took 17-19 ms on an idle host against 7 ms on a member
// not reset. The simulator keeps a member's connection across a timeout, as etcd's own Go client does.
//
// The rule: a client whose channel is READY (its connection is up, so the failure was the member's
// answer, not the link) is kept; grpc-js notices a broken connection itself (keepalive pings, a reset or a
// close) and leaves READY. Any other channel is closed as etcd3 does, which also gives a member just
// restarted a fresh channel instead of grpc-js's reconnect backoff. Host.close() still closes everything.
import type { Etcd3 } from 'etcd3';

/** grpc's connectivity state READY (gRPC connectivity-semantics: IDLE 0, CONNECTING 1, READY 2, ...). */
const CHANNEL_READY = 2;

/** The parts of etcd3 1.1.2's internal Host (lib/connection-pool.js) this file relies on. */
interface PoolHost {
  cachedServices: Record<string, ServiceClient | undefined>;
  closed: boolean;
  resetAllServices(): void;
  close(): void;
}

interface ServiceClient {
  getChannel(): { getConnectivityState(tryToConnect: boolean): number };
}

function poolHosts(client: Etcd3): PoolHost[] {
  const hosts = (client as unknown as { pool?: { hosts?: unknown } }).pool?.hosts;
  if (!Array.isArray(hosts)) throw new Error('etcd3 internals changed: Etcd3.pool.hosts is not an array (src/etcd/keep-ready-channels.ts)');
  return hosts as PoolHost[];
}

/** Makes `client`'s pool close only the gRPC clients whose channel is not READY when a call fails. */
export function keepReadyChannels(client: Etcd3): void {
  for (const host of poolHosts(client)) {
    const resetAll = host.resetAllServices.bind(host);
    host.resetAllServices = () => {
      const kept: Record<string, ServiceClient | undefined> = Object.create(null) as Record<string, ServiceClient | undefined>;
      const closing: Record<string, ServiceClient | undefined> = Object.create(null) as Record<string, ServiceClient | undefined>;
      for (const [name, service] of Object.entries(host.cachedServices)) {
        const ready = service?.getChannel().getConnectivityState(false) === CHANNEL_READY;
        (ready ? kept : closing)[name] = service;
      }
      host.cachedServices = closing;
      resetAll(); // closes `closing` the way etcd3 does (its CONNECTING workaround included)
      host.cachedServices = kept;
    };
    host.close = () => {
      resetAll();
      host.closed = true;
    };
  }
}
