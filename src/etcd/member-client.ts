// One etcd3 client per etcd endpoint, with etcd3's fault handling switched off.
//
// Why not one Etcd3 over all endpoints: etcd3's pool retries a failed call up to three times on any
// "recoverable" error (deadline exceeded and unavailable included) and picks hosts with Math.random. A
// retried txn may commit twice, and a timed-out write would come back as a later, different answer
// instead of an indeterminate outcome (STYLE.md: unknown outcomes are first-class). It also never says
// which member served a call, which `status` and the streams need. So each endpoint gets its own Etcd3,
// and src/etcd/endpoint-set.ts chooses the endpoint and fails over only when nothing was sent.
import { Etcd3, type IOptions } from 'etcd3';
import { parseEndpoint } from './endpoint-address.js';
import { type EtcdClientTls, withTlsScheme } from './etcd-tls.js';
import { keepReadyChannels } from './keep-ready-channels.js';

type FaultPolicy = ReturnType<NonNullable<NonNullable<IOptions['faultHandling']>['host']>>;

const noEvents = () => ({ dispose: () => {} });

/**
 * The signal a cockatiel policy hands its call. Nothing aborts it (no retry or breaker here to give up,
 * and etcd3 reads it nowhere), so one serves every call: etcd3 runs a call through two policies (global
 * and host), and a controller per run was two AbortControllers per etcd call, visible in serve's profile
 * (issue 30). Deadlines are the calls' own (CallOptions.deadline) and cancellation the hedge's signal.
 */
const NEVER_ABORTED: { readonly signal: AbortSignal } = Object.freeze({ signal: new AbortController().signal });

/** A cockatiel-shaped policy that just runs the call: no retry, no circuit breaker. */
const passThroughPolicy = {
  onSuccess: noEvents,
  onFailure: noEvents,
  execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> => fn(NEVER_ABORTED),
} as unknown as FaultPolicy;

// HTTP/2 pings find a dead peer under an open watch stream (a partition sends no RST). etcd's server
// enforces a 5 s minimum ping interval (--grpc-keepalive-min-time) and no pings without streams.
const GRPC_CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 0,
};

/**
 * The endpoint as http://host:port, or https:// when given so or when TLS is configured (endpoint-address.ts
 * and etcd-tls.ts hold the rules); throws on anything else.
 */
export function normaliseEndpoint(endpoint: string, tls?: EtcdClientTls): string {
  return withTlsScheme(parseEndpoint(endpoint, { allowHttps: true }), tls);
}

/**
 * An etcd3 client bound to exactly one member. Use its `kv`, `leaseClient`, `watchClient`, `maintenance`.
 * A failed call leaves the member's live connection open (keep-ready-channels.ts, issue 32).
 */
export function createMemberClient(endpoint: string, tls?: EtcdClientTls): Etcd3 {
  const client = createEtcd3MemberClient(endpoint, tls);
  keepReadyChannels(client);
  return client;
}

/** The same client as etcd3 alone makes it: every failed call closes the member's gRPC clients (tests' control). */
export function createEtcd3MemberClient(endpoint: string, tls?: EtcdClientTls): Etcd3 {
  return new Etcd3({
    hosts: [normaliseEndpoint(endpoint, tls)],
    faultHandling: { host: () => passThroughPolicy, global: passThroughPolicy },
    grpcOptions: GRPC_CHANNEL_OPTIONS,
    ...(tls === undefined ? {} : { credentials: { rootCertificate: tls.ca, ...(tls.key === undefined ? {} : { privateKey: tls.key }), ...(tls.cert === undefined ? {} : { certChain: tls.cert }) } }),
  });
}
