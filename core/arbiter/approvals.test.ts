import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import type { Clock } from '../ports/clock.js';
import { MAX_PENDING_APPROVALS_PER_NAMESPACE, MAX_PENDING_APPROVALS_PER_OPERATOR } from '../limits.js';
import { LockError } from '../lock-error.js';
import { APPROVAL_WINDOW_MS, MAX_PENDING_APPROVALS, PendingApprovals, checkAuthenticated } from './approvals.js';

function manualClock(): Clock & { advance(ms: number): void } {
  let nowMs = 0;
  return { now: () => nowMs, sleep: async () => undefined, advance: (ms) => (nowMs += ms) };
}

function codeOf(call: () => unknown): string | undefined {
  try {
    call();
  } catch (error) {
    return isLockError(error) ? error.code : 'not a LockError';
  }
  return undefined;
}

describe('two-person approvals (ADR-20)', () => {
  it('lets a different person claim a proposal once, never its requester', () => {
    const pending = new PendingApprovals<string>('force-release', manualClock(), 'a1-');
    const proposal = pending.propose('ana', 'payments/ledger/1');
    expect(proposal.requestId).toBe('a1-force-release-1');
    expect(codeOf(() => pending.claim('ana', proposal.requestId))).toBe('approval-required');
    expect(pending.claim('ben', proposal.requestId).value).toBe('payments/ledger/1'); // still there after the refusal
    expect(codeOf(() => pending.claim('cleo', proposal.requestId))).toBe('stale'); // used up
  });

  it('forgets a proposal after the approval window, and bounds how many wait', () => {
    const clock = manualClock();
    const pending = new PendingApprovals<number>('epoch-advance', clock, '');
    const early = pending.propose('ana', 1);
    clock.advance(APPROVAL_WINDOW_MS);
    expect(codeOf(() => pending.claim('ben', early.requestId))).toBe('stale');
    for (let i = 0; i < MAX_PENDING_APPROVALS; i++) pending.propose(`op-${i % 100}`, i, `ns-${i % 20}`);
    expect(codeOf(() => pending.propose('someone-new', -1, 'fresh'))).toBe('resource-exhausted');
  });

  it('bounds proposals per operator and per namespace, so one cannot fill the table another needs (issue 28)', () => {
    const pending = new PendingApprovals<number>('force-release', manualClock(), '');
    for (let i = 0; i < MAX_PENDING_APPROVALS_PER_OPERATOR; i++) pending.propose('ana', i, `ns-${i}`);
    expect(codeOf(() => pending.propose('ana', -1, 'other'))).toBe('resource-exhausted');
    expect(() => pending.propose('ana', -1, 'other')).toThrow(/MAX_PENDING_APPROVALS_PER_OPERATOR/);
    expect(pending.propose('ben', 0, 'other').requester).toBe('ben'); // another operator is not affected
    for (let i = 0; i < MAX_PENDING_APPROVALS_PER_NAMESPACE; i++) pending.propose(`op-${i}`, i, 'payments');
    expect(() => pending.propose('cleo', -1, 'payments')).toThrow(/MAX_PENDING_APPROVALS_PER_NAMESPACE/);
    expect(pending.propose('cleo', 0, 'orders').requester).toBe('cleo'); // another namespace is not affected
    expect(pending.propose('cleo', 0).requester).toBe('cleo'); // a proposal on the whole log counts under no namespace
  });

  it('check, then change: a refused authorisation leaves the proposal waiting (issue 28)', () => {
    const pending = new PendingApprovals<string>('force-release', manualClock(), '');
    const proposal = pending.propose('ana', 'payments/ledger/1', 'payments');
    const refuse = (): void => {
      throw new LockError('denied', 'not an operator of payments/ledger/1');
    };
    expect(codeOf(() => pending.claim('mallory', proposal.requestId, refuse))).toBe('denied');
    expect(pending.size).toBe(1);
    expect(pending.claim('ben', proposal.requestId, () => undefined).value).toBe('payments/ledger/1');
    expect(pending.size).toBe(0);
  });

  it('refuses an operator the transport did not authenticate', () => {
    expect(codeOf(() => checkAuthenticated({ identity: 'spiffe://ops/ana', authenticated: false }, 'approver'))).toBe('unauthenticated');
    expect(checkAuthenticated({ identity: 'spiffe://ops/ana', authenticated: true }, 'approver')).toBe('spiffe://ops/ana');
  });
});
