// A client that reaches more than one arbiter replica (issue 11's widened explorer): each lock.v1 call goes
// to a replica drawn from the client process's own seeded stream, as a client does whose key affinity
// moved (a ring rebalance, a failover, Envoy's ring-hash after a replica restarts; ARCHITECTURE.md, the
// service). So a hold granted through one replica is renewed, validated and released through another,
// and an epoch advanced through one meets replicas that still hold a cached epoch (ADR-03, S2).
import { type Random, randomInt } from '../../core/ports/random.js';
import type { SimProcess } from '../process/process.js';

/** SimArbiterClient's `route`: each call to one of `replicas`, drawn from `random`. */
export function routeOverReplicas(replicas: readonly SimProcess[], random: Random): () => SimProcess {
  if (replicas.length === 0) throw new Error('routeOverReplicas needs at least one replica');
  return () => replicas[randomInt(random, 0, replicas.length - 1)] as SimProcess;
}
