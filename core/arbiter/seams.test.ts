import { describe, expect, it } from 'vitest';
import { parseLockKey } from '../lock-key.js';
import { clusterId, leaseId, memberId, revision } from '../units.js';
import { type GrantTxnInput, grantTxn } from './grant-txn.js';
import type { AttemptTrigger } from './key-queue.js';
import { EPOCH_KEY } from './records.js';
import { SealGuard } from './seal-guard.js';
import { HONEST_ARBITER_SEAMS, productionGrantTxn } from './seams.js';

const input: GrantTxnInput = {
  key: parseLockKey('payments/ledger-7'),
  identity: 'spiffe://sim/alice',
  instance: '',
  sessionId: leaseId(42n),
  className: 'ledger-writes',
  epoch: { record: { epoch: 3, clusterId: 7n }, modRevision: revision(19n) },
  guardVersion: 0n,
};

describe('the arbiter seams: honest defaults are the rules as implemented', () => {
  it.each<AttemptTrigger>(['arrival', 'watch-event', 'hint', 'poll'])('runs the full grant txn on a %s, comparing holder absence, the epoch record and the grant guard (ADR-03/15, issue 11 L2)', (trigger) => {
    const txn = HONEST_ARBITER_SEAMS.grantTxn(input, trigger);
    expect(txn).toEqual(grantTxn(input));
    expect(txn.compare).toEqual([
      { key: '/l/payments/ledger-7', target: 'create', op: '=', value: 0n },
      { key: EPOCH_KEY, target: 'mod', op: '=', value: 19n },
      { key: '/g/payments/ledger-7//42', target: 'version', op: '=', value: 0n },
    ]);
  });

  it('names the production grant txn as the honest seam, so production never reaches a mutant\'s seam by name (issue 34)', () => {
    expect(HONEST_ARBITER_SEAMS.grantTxn).toBe(productionGrantTxn);
  });

  it('gives each arbiter its own seal guard, which seals on a foreign cluster ID (ADR-03)', () => {
    const first = HONEST_ARBITER_SEAMS.sealGuard();
    const second = HONEST_ARBITER_SEAMS.sealGuard();
    expect(first).toBeInstanceOf(SealGuard);
    expect(first).not.toBe(second);
    first.bindCluster(1n);
    expect(() => first.observe({ clusterId: clusterId(2n), memberId: memberId(1n), revision: revision(5n), raftTerm: 2n }, undefined)).toThrow(/cluster ID/);
    expect(second.sealed).toBeUndefined();
  });

  it('confirms the cluster with a read before the first write on a new connection (issue 19)', () => {
    expect(HONEST_ARBITER_SEAMS.confirmBeforeWrite).toBe(true);
  });
});
