// A member's live connection survives a call that timed out on it (issue 32, keep-ready-channels.ts), on a
// real etcd: the member client keeps its READY KV client after DEADLINE_EXCEEDED, so the next call is not
// a reconnect. The control, etcd3's own client with the same options, closes it (the test can fail). A
// channel that is not READY (nothing listening) is still closed as etcd3 does, and close() closes all.
import type { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { createEtcd3MemberClient, createMemberClient } from './member-client.js';

const REAL_CLUSTER_TIMEOUT_MS = 60_000;
const CHANNEL_READY = 2;
const CHANNEL_SHUTDOWN = 4;

interface ServiceClient {
  getChannel(): { getConnectivityState(tryToConnect: boolean): number };
}

function kvClient(client: Etcd3): ServiceClient | undefined {
  const host = (client as unknown as { pool: { hosts: Array<{ cachedServices: Record<string, ServiceClient | undefined> }> } }).pool.hosts[0];
  return host?.cachedServices.KV;
}

/** A put sent with a deadline already past: grpc-js ends it DEADLINE_EXCEEDED, an etcd3 "recoverable" error. */
async function timedOutPut(client: Etcd3): Promise<string> {
  const error = await client.put('afterwait/k').value('v').options({ deadline: new Date(Date.now() - 1) }).then(() => 'answered', (e: unknown) => e);
  return error instanceof Error ? error.constructor.name : String(error);
}

describe('a member client after a call that failed on it', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 1 });
  }, REAL_CLUSTER_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps its READY connection after DEADLINE_EXCEEDED; etcd3 alone closes it (control)', async () => {
    const ours = createMemberClient(cluster.endpoints[0]!);
    const etcd3Alone = createEtcd3MemberClient(cluster.endpoints[0]!);
    try {
      for (const client of [ours, etcd3Alone]) await client.put('afterwait/warm').value('x');
      const [oursKv, aloneKv] = [kvClient(ours), kvClient(etcd3Alone)];
      expect(oursKv?.getChannel().getConnectivityState(false)).toBe(CHANNEL_READY);
      expect(await timedOutPut(ours)).toBe('GRPCDeadlineExceededError');
      expect(await timedOutPut(etcd3Alone)).toBe('GRPCDeadlineExceededError');
      expect(kvClient(ours)).toBe(oursKv);
      expect(oursKv?.getChannel().getConnectivityState(false)).toBe(CHANNEL_READY);
      expect(kvClient(etcd3Alone)).toBeUndefined();
      expect(aloneKv?.getChannel().getConnectivityState(false)).toBe(CHANNEL_SHUTDOWN);
      expect(await ours.get('afterwait/warm').string()).toBe('x');
      expect(kvClient(ours)).toBe(oursKv); // the next call went out on the same channel
    } finally {
      ours.close();
      etcd3Alone.close();
    }
  }, REAL_CLUSTER_TIMEOUT_MS);

  it('closes a channel that is not READY, as etcd3 does, and closes everything at close()', async () => {
    const [port] = await freePorts(1);
    const nowhere = createMemberClient(`http://127.0.0.1:${port}`);
    const failed = await nowhere.get('afterwait/k').string().then(() => 'answered', (e: unknown) => (e instanceof Error ? e.constructor.name : String(e)));
    expect(failed).toBe('GRPCUnavailableError');
    expect(kvClient(nowhere)).toBeUndefined();
    nowhere.close();

    const live = createMemberClient(cluster.endpoints[0]!);
    await live.put('afterwait/warm').value('x');
    const kv = kvClient(live);
    live.close();
    expect(kv?.getChannel().getConnectivityState(false)).toBe(CHANNEL_SHUTDOWN);
  }, REAL_CLUSTER_TIMEOUT_MS);
});
