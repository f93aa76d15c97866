// The gateway's last word before a request leaves (issue 11, swarm seed 1605): a request no longer wanted
// once its confirmation read is done is not sent at all.
import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import type { LockLog, TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { clusterId, memberId, revision } from '../units.js';
import { LogGateway } from './log-gateway.js';
import { SealGuard } from './seal-guard.js';

const header = { clusterId: clusterId(1n), memberId: memberId(1n), revision: revision(3n), raftTerm: 1n };
const put: TxnRequest = { compare: [], success: [{ type: 'put', key: '/l/orders/o-1', value: 'v' }], failure: [] };

function countingLog(): { log: LockLog; sent: TxnRequest[] } {
  const sent: TxnRequest[] = [];
  const unused = (): never => {
    throw new Error('not called by this test');
  };
  const log: LockLog = {
    txn: async (request): Promise<TxnResponse> => (sent.push(request), { header, succeeded: true, responses: [{ type: 'put' }] }),
    range: unused, leaseGrant: unused, leaseKeepAlive: unused, leaseRevoke: unused, leaseTimeToLive: unused, watch: unused, compact: unused, status: unused, close: unused,
  };
  return { log, sent };
}

describe('LogGateway stillWanted', () => {
  it('sends nothing when the request is no longer wanted just before it would leave, and says so as unavailable', async () => {
    const { log, sent } = countingLog();
    const gateway = new LogGateway(log, new SealGuard());
    const refused = await gateway.txn(put, { stillWanted: () => false }).then(() => undefined, (error: unknown) => error);
    expect(isLockError(refused, 'unavailable')).toBe(true);
    expect(sent).toEqual([]);
  });

  it('its control: a request still wanted is sent', async () => {
    const { log, sent } = countingLog();
    const gateway = new LogGateway(log, new SealGuard());
    expect((await gateway.txn(put, { stillWanted: () => true })).succeeded).toBe(true);
    expect(sent).toEqual([put]);
  });
});
