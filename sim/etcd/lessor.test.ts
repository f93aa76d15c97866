import { describe, expect, it } from 'vitest';
import { leaseId } from '../../core/units.js';
import { FOREVER_TTL_SECONDS, PROMOTE_EXTEND_MS } from './etcd-defaults.js';
import { Lessor, type LessorConfig } from './lessor.js';

const L1 = leaseId(1n);
const L2 = leaseId(2n);

function grantOk(lessor: Lessor, id = L1, ttlSeconds = 10, nowMs = 0) {
  const granted = lessor.grant(id, ttlSeconds, nowMs);
  if (!granted.ok) throw granted.error;
  return granted.value;
}

function primaryLessor(config: LessorConfig = {}, nowMs = 0): Lessor {
  const lessor = new Lessor(config);
  lessor.promote(PROMOTE_EXTEND_MS, nowMs);
  return lessor;
}

describe('Lessor.grant (lease/lessor.go Grant l.274-322)', () => {
  it('raises a TTL below the 2 s minimum and answers the raised TTL (l.299-301, apply.go l.590-599)', () => {
    expect(grantOk(new Lessor(), L1, 1)).toEqual({ id: L1, ttlSeconds: 2 });
    expect(grantOk(new Lessor(), L1, -5)).toEqual({ id: L1, ttlSeconds: 2 });
    expect(grantOk(new Lessor({ minTtlSeconds: 5 }), L1, 3).ttlSeconds).toBe(5);
  });

  it('refuses id 0 (ErrLeaseNotFound), an existing id (ErrLeaseExists) and a TTL above MaxLeaseTTL', () => {
    const lessor = new Lessor();
    grantOk(lessor);
    expect(lessor.grant(leaseId(0n), 10, 0)).toMatchObject({ ok: false, error: { code: 'lease-not-found' } });
    expect(lessor.grant(L1, 10, 0)).toMatchObject({ ok: false, error: { code: 'lease-exists' } });
    expect(lessor.grant(L2, 9_000_000_001, 0)).toMatchObject({ ok: false, error: { code: 'invalid-argument' } });
    expect(lessor.grant(L2, 2.5, 0)).toMatchObject({ ok: false, error: { code: 'invalid-argument' } });
  });

  it('starts the expiry at apply time on the primary only (l.303-307)', () => {
    const primary = primaryLessor();
    grantOk(primary, L1, 10, 5_000);
    expect(primary.lookup(L1)?.expiryMs).toBe(15_000);
    const follower = new Lessor();
    grantOk(follower, L1, 10, 5_000);
    expect(follower.lookup(L1)?.expiryMs).toBeUndefined();
  });
});

describe('primary and expiry (l.256, Promote l.467-519, Demote l.527-543)', () => {
  it('never expires a lease on a non-primary member, however late', () => {
    const lessor = new Lessor();
    grantOk(lessor, L1, 2);
    expect(lessor.findExpiredLeases(1e12)).toEqual([]);
    expect(lessor.timeToLive(L1, 1e12)?.ttlSeconds).toBe(FOREVER_TTL_SECONDS);
  });

  it('promote sets every expiry to exactly now + extend + TTL', () => {
    const lessor = new Lessor();
    grantOk(lessor, L1, 10);
    grantOk(lessor, L2, 60);
    lessor.promote(1_000, 5_000);
    expect(lessor.lookup(L1)?.expiryMs).toBe(16_000);
    expect(lessor.lookup(L2)?.expiryMs).toBe(66_000);
    expect(lessor.findExpiredLeases(15_999)).toEqual([]);
    expect(lessor.findExpiredLeases(16_000)).toEqual([L1]);
  });

  it('promote after a lease ran down still grants the full TTL again (checkpointing off)', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 10, 0);
    lessor.demote();
    lessor.promote(1_000, 9_000);
    expect(lessor.lookup(L1)?.expiryMs).toBe(20_000);
  });

  it('demote makes every lease forever and stops the expiry scan', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 10, 0);
    lessor.demote();
    expect(lessor.isPrimary()).toBe(false);
    expect(lessor.lookup(L1)?.expiryMs).toBeUndefined();
    expect(lessor.findExpiredLeases(1e9)).toEqual([]);
    expect(lessor.renew(L1, 0)).toEqual({ kind: 'not-primary' });
  });

  it('spreads expiries when promoting 1000 or more leases: at most 750 per second (l.481-518)', () => {
    const lessor = new Lessor();
    for (let i = 1; i <= 2_000; i++) grantOk(lessor, leaseId(BigInt(i)), 10);
    lessor.promote(1_000, 0);
    const perSecond = new Map<number, number>();
    for (const lease of lessor.leases()) {
      const second = Math.floor((lease.expiryMs as number) / 1_000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(751);
    expect(lessor.lookup(leaseId(1n))?.expiryMs).toBe(11_000);
    expect(lessor.lookup(leaseId(751n))?.expiryMs).toBeCloseTo(11_000 + (1_000 * 751) / 750, 6);
  });

  it('does not spread fewer than 1000 leases', () => {
    const lessor = new Lessor();
    for (let i = 1; i <= 999; i++) grantOk(lessor, leaseId(BigInt(i)), 10);
    lessor.promote(1_000, 0);
    expect(new Set(lessor.leases().map((lease) => lease.expiryMs))).toEqual(new Set([11_000]));
  });
});

describe('findExpiredLeases (runLoop 500 ms, findExpiredLeases l.687-741)', () => {
  it('re-offers an expired lease that was not revoked 7 s later (expiredLeaseRetryInterval = ReqTimeout)', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 10, 0);
    expect(lessor.findExpiredLeases(10_000)).toEqual([L1]);
    expect(lessor.findExpiredLeases(10_500)).toEqual([]);
    expect(lessor.findExpiredLeases(16_999)).toEqual([]);
    expect(lessor.findExpiredLeases(17_000)).toEqual([L1]);
  });

  it('returns at most `limit` leases per pass, leaving the rest for the next pass', () => {
    const lessor = primaryLessor();
    for (let i = 1; i <= 600; i++) grantOk(lessor, leaseId(BigInt(i)), 5, 0);
    expect(lessor.findExpiredLeases(5_000)).toHaveLength(500);
    expect(lessor.findExpiredLeases(5_500)).toHaveLength(100);
  });

  it('drops leases that are gone', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 5, 0);
    expect(lessor.revoke(L1, { write: () => ({ deleteRange: () => 0, end: () => undefined }) }).ok).toBe(true);
    expect(lessor.findExpiredLeases(60_000)).toEqual([]);
  });
});

describe('Lessor.renew (l.393-443)', () => {
  it('answers not-primary on a follower and not-found for a missing lease', () => {
    expect(new Lessor().renew(L1, 0)).toEqual({ kind: 'not-primary' });
    expect(primaryLessor().renew(L1, 0)).toEqual({ kind: 'not-found' });
  });

  it('resets the expiry to now + TTL and answers the granted TTL, not the remaining one', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 10, 0);
    expect(lessor.renew(L1, 4_000)).toEqual({ kind: 'renewed', ttlSeconds: 10 });
    expect(lessor.lookup(L1)?.expiryMs).toBe(14_000);
    expect(lessor.findExpiredLeases(13_999)).toEqual([]);
  });

  it('does not revive an expired lease: the renew waits and the lease stays expired', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 10, 0);
    expect(lessor.renew(L1, 10_000)).toEqual({ kind: 'expired-wait' });
    expect(lessor.lookup(L1)?.expiryMs).toBe(10_000);
    expect(lessor.findExpiredLeases(10_000)).toEqual([L1]);
    expect(lessor.renew(L1, 12_000)).toEqual({ kind: 'expired-wait' });
  });
});

describe('Lessor.timeToLive (etcdserver/v3_server.go l.325-373)', () => {
  it('truncates the remaining seconds, answers the granted TTL and the keys in byte order', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 10, 0);
    lessor.attach(L1, 'b');
    lessor.attach(L1, 'a');
    expect(lessor.timeToLive(L1, 1)).toEqual({ ttlSeconds: 9, grantedTtlSeconds: 10, keys: ['a', 'b'] });
    expect(lessor.timeToLive(L1, 11_500)?.ttlSeconds).toBe(-1);
    expect(lessor.timeToLive(L2, 0)).toBeUndefined();
  });
});

describe('checkpoints (--experimental-enable-lease-checkpoint, l.743-796, l.364-380)', () => {
  const config: LessorConfig = { checkpointing: true };

  it('schedules a checkpoint 5 min after grant for a TTL above 5 min, and batches due ones', () => {
    const lessor = primaryLessor(config);
    grantOk(lessor, L1, 600, 0);
    grantOk(lessor, L2, 300, 0);
    expect(lessor.checkpointScheduledLeases(299_999)).toEqual([]);
    expect(lessor.checkpointScheduledLeases(300_000)).toEqual([[{ id: L1, remainingTtlSeconds: 300 }]]);
    expect(lessor.checkpointScheduledLeases(400_000)).toEqual([]);
  });

  it('makes a later promote count from the checkpointed remainder, and a renew clear it first', () => {
    const lessor = primaryLessor(config);
    grantOk(lessor, L1, 600, 0);
    lessor.checkpoint(L1, 300, 300_000);
    lessor.demote();
    lessor.promote(1_000, 400_000);
    expect(lessor.lookup(L1)?.expiryMs).toBe(400_000 + 1_000 + 300_000);
    expect(lessor.renew(L1, 410_000)).toEqual({ kind: 'checkpoint-first', checkpoint: { id: L1, remainingTtlSeconds: 0 } });
    lessor.checkpoint(L1, 0, 410_000);
    expect(lessor.renew(L1, 410_000, { checkpointDone: true })).toEqual({ kind: 'renewed', ttlSeconds: 600 });
    expect(lessor.lookup(L1)?.expiryMs).toBe(410_000 + 600_000);
  });

  it('ignores checkpoints of missing leases and never schedules with checkpointing off', () => {
    const lessor = primaryLessor();
    grantOk(lessor, L1, 600, 0);
    lessor.checkpoint(L2, 5, 0);
    expect(lessor.checkpointScheduledLeases(1e9)).toEqual([]);
    lessor.checkpoint(L1, 100, 0);
    expect(lessor.renew(L1, 1)).toEqual({ kind: 'renewed', ttlSeconds: 600 });
  });

  it('restarts with leases forever and only the persisted remainder (initAndRecover l.798-826)', () => {
    const plain = primaryLessor(config);
    grantOk(plain, L1, 600, 0);
    plain.checkpoint(L1, 100, 0);
    plain.restart();
    expect(plain.isPrimary()).toBe(false);
    expect(plain.lookup(L1)).toMatchObject({ remainingTtlSeconds: 0, expiryMs: undefined });
    const persisting = primaryLessor({ ...config, checkpointPersist: true });
    grantOk(persisting, L1, 600, 0);
    persisting.checkpoint(L1, 100, 0);
    persisting.restart();
    expect(persisting.lookup(L1)?.remainingTtlSeconds).toBe(100);
  });
});
