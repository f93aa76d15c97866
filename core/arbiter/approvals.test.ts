import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import type { Clock } from '../ports/clock.js';
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
    for (let i = 0; i < MAX_PENDING_APPROVALS; i++) pending.propose('ana', i);
    expect(codeOf(() => pending.propose('ana', -1))).toBe('unavailable');
  });

  it('refuses an operator the transport did not authenticate', () => {
    expect(codeOf(() => checkAuthenticated({ identity: 'spiffe://ops/ana', authenticated: false }, 'approver'))).toBe('unauthenticated');
    expect(checkAuthenticated({ identity: 'spiffe://ops/ana', authenticated: true }, 'approver')).toBe('spiffe://ops/ana');
  });
});
