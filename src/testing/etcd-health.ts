// "Healthy" for a test cluster member, as etcd's own /health endpoint means it: the member knows a leader
// and a linearizable read (a ReadIndex round through the leader) completes.
import type { EtcdClientTls } from '../etcd/etcd-tls.js';
import { createMemberClient } from '../etcd/member-client.js';

const PROBE_DEADLINE_MS = 2_000;
const POLL_INTERVAL_MS = 100;
/** Part of foreignCluster's answer: etcd-cluster.ts retries on it as on etcd's own "address already in use". */
export const PORT_TAKEN = 'its port was taken';

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One probe; returns undefined when healthy, else why not. */
export async function probeMember(clientUrl: string, tls?: EtcdClientTls): Promise<string | undefined> {
  const client = createMemberClient(clientUrl, tls);
  try {
    const deadline = () => ({ deadline: Date.now() + PROBE_DEADLINE_MS });
    const status = await client.maintenance.status(deadline());
    if (status.leader === '0') return 'no leader yet';
    await client.kv.range({ key: Buffer.from('health') }, deadline());
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    client.close();
  }
}

/**
 * Undefined when the member answering at `clientUrl` belongs to the cluster advertising `peerUrls`, else
 * why not. A member that lost its client port to another process (a port clash: free-port.ts) exits, and
 * the probes above are answered by whoever holds the port: an etcd 3.4 peer port serves the gRPC API too,
 * so another cluster's member passes as healthy and a test would run against it.
 */
export async function foreignCluster(clientUrl: string, peerUrls: readonly string[], tls?: EtcdClientTls): Promise<string | undefined> {
  const client = createMemberClient(clientUrl, tls);
  try {
    const { members } = await client.cluster.memberList({}, { deadline: Date.now() + PROBE_DEADLINE_MS });
    const strangers = members.flatMap((member) => member.peerURLs).filter((url) => !peerUrls.includes(url));
    if (strangers.length === 0) return undefined;
    return `${clientUrl} answers for another etcd cluster (peers ${strangers.slice(0, 3).join(', ')}): ${PORT_TAKEN}`;
  } finally {
    client.close();
  }
}

/**
 * Polls every member until each is healthy. `stillAlive` is asked between probes and returns a reason
 * when a member process has died, so a broken start fails at once instead of at the timeout.
 */
export async function waitUntilHealthy(clientUrls: readonly string[], timeoutMs: number, stillAlive: () => string | undefined, tls?: EtcdClientTls): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(clientUrls);
  let lastProblem = 'not probed yet';
  while (pending.size > 0) {
    const dead = stillAlive();
    if (dead !== undefined) throw new Error(dead);
    for (const url of [...pending]) {
      const problem = await probeMember(url, tls);
      if (problem === undefined) pending.delete(url);
      else lastProblem = `${url}: ${problem}`;
    }
    if (pending.size === 0) return;
    if (Date.now() > deadline) throw new Error(`etcd not healthy after ${timeoutMs} ms (last: ${lastProblem})`);
    await sleepMs(POLL_INTERVAL_MS);
  }
}
