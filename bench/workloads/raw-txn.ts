// The limit for a grant: the same two writes a grant and a release make, sent straight through the etcd3
// package's gRPC stubs with nothing of lockstep in between. Create: a txn comparing the key's create
// revision with 0 and putting a holder-sized value on the worker's lease (a grant without the epoch
// compare); delete: a txn comparing the create revision and deleting (a release).
import { CompareResult, CompareTarget, type Etcd3, type ITxnRequest } from 'etcd3';
import { createMemberClient } from '../../src/etcd/member-client.js';
import { type Workload, holderSizedValue, since } from './workload.js';

/** Long enough to outlast any run without renewal (renewal is not what this workload measures); revoked at close. */
const LEASE_TTL_SECONDS = 3600;

export async function rawTxnWorkload(endpoint: string, workers: number, runId: string): Promise<Workload> {
  const client: Etcd3 = createMemberClient(endpoint);
  const leases: string[] = [];
  try {
    for (let i = 0; i < workers; i++) leases.push((await client.leaseClient.leaseGrant({ TTL: LEASE_TTL_SECONDS, ID: '0' })).ID);
  } catch (error) {
    client.close();
    throw error;
  }
  const values = Array.from({ length: workers }, (_, i) => Buffer.from(holderSizedValue(i)));
  return {
    name: 'rawTxn',
    phases: ['create', 'delete', 'cycle'],
    async operation(worker, iteration, record) {
      const key = Buffer.from(`/bench/${runId}/raw/w${worker}-${iteration}`);
      const startMs = performance.now();
      const created = await client.kv.txn(createTxn(key, values[worker] as Buffer, leases[worker] as string));
      const createdMs = since(startMs);
      if (!created.succeeded) throw new Error(`raw create of ${key.toString()} found the key present`);
      const deleteStartMs = performance.now();
      const deleted = await client.kv.txn(deleteTxn(key, created.header.revision));
      record(1, since(deleteStartMs));
      if (!deleted.succeeded) throw new Error(`raw delete of ${key.toString()} found the key changed`);
      record(0, createdMs);
      record(2, since(startMs));
    },
    async close() {
      await Promise.all(leases.map((id) => client.leaseClient.leaseRevoke({ ID: id }).catch(() => undefined)));
      client.close();
    },
  };
}

function createTxn(key: Buffer, value: Buffer, lease: string): ITxnRequest {
  return {
    compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: '0' }],
    success: [{ request_put: { key, value, lease } }],
    failure: [],
  };
}

function deleteTxn(key: Buffer, createRevision: string): ITxnRequest {
  return {
    compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: createRevision }],
    success: [{ request_delete_range: { key } }],
    failure: [],
  };
}
