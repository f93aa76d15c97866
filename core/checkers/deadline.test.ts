import { describe, expect, it } from 'vitest';
import { checkDeadline } from './deadline.js';
import type { FenceRecord, GrantRecord, HolderOutage } from './run-history.js';

// a's hold expires at 16000 (revoke at revision 8); b's is released; c's is still held; d's is force-released.
const grants: GrantRecord[] = [
  { key: 'k', token: 5n, holder: 'a', revision: 5n, grantedAtMs: 1000, endedAtRevision: 8n, endedAtMs: 16000, endReason: 'expiry' },
  { key: 'k', token: 9n, holder: 'b', revision: 9n, grantedAtMs: 16100, endedAtRevision: 10n, endedAtMs: 17000, endReason: 'release' },
  { key: 'k', token: 11n, holder: 'c', revision: 11n, grantedAtMs: 17100 },
  { key: 'other', token: 7n, holder: 'd', revision: 7n, grantedAtMs: 2000, endedAtRevision: 12n, endedAtMs: 18000, endReason: 'force-release' },
];
const fence = (atMs: number, token = 5n, holder = 'a'): FenceRecord => ({ holder, key: 'k', token, atMs });
const pause = (fromMs: number, toMs?: number, holder = 'a'): HolderOutage => ({ holder, kind: 'pause', fromMs, ...(toMs === undefined ? {} : { toMs }) });
const crash = (fromMs: number, toMs?: number, holder = 'a'): HolderOutage => ({ holder, kind: 'crash', fromMs, ...(toMs === undefined ? {} : { toMs }) });

describe('deadline: a running holder is fenced before the log expires its hold (ADR-12)', () => {
  it('passes a fence before the expiry, or at its very moment; holds ended otherwise, or not at all, need none', () => {
    expect(checkDeadline(grants, [fence(15000)])).toMatchObject({ name: 'deadline', ok: true, detail: 'ok: 1 hold the log ended by expiry checked against 1 fence' });
    expect(checkDeadline(grants, [fence(16000)]).ok).toBe(true);
    // The earliest fence of a hold counts (a client may close a session it had fenced already).
    expect(checkDeadline(grants, [fence(16500), fence(15999)]).ok).toBe(true);
  });

  it('finds a fence after the expiry, and names the holder, token, expiry, fence and how late', () => {
    const result = checkDeadline(grants, [fence(16227.5)]);
    expect(result.ok).toBe(false);
    expect(result.violations).toEqual([
      {
        kind: 'fence-after-expiry',
        key: 'k',
        message:
          'key k: the log expired the hold of holder a (token 5) at 16000 ms (revision 8), but its library fenced it only at 16227.5 ms, 227.5 ms late, ' +
          'while its process was running: the holder could go on acting on a hold the log had already ended (ADR-12)',
        involved: [{ holder: 'a', token: '5' }],
        atMs: 16000,
        revisions: ['5', '8'],
      },
    ]);
  });

  it('finds a hold the log expired while its holder ran and its library never fenced', () => {
    const result = checkDeadline(grants, []);
    expect(result.violations.map((v) => [v.kind, v.involved])).toEqual([['fence-never-called', [{ holder: 'a', token: '5' }]]]);
    expect(result.violations[0]?.message).toMatch(/^key k: the log expired the hold of holder a \(token 5\) at 16000 ms \(revision 8\), but its library never fenced it, though its process was running/);
  });

  it("counts only a fence of that very hold: another token's, or another holder's, does not stand in", () => {
    expect(checkDeadline(grants, [fence(15000, 9n)]).violations.map((v) => v.kind)).toEqual(['fence-never-called']);
    expect(checkDeadline(grants, [fence(15000, 5n, 'b')]).violations.map((v) => v.kind)).toEqual(['fence-never-called']);
  });

  it('excuses a late or missing fence while the holder was paused at the expiry, or crashed since the grant', () => {
    const pausedOver = checkDeadline(grants, [fence(20000)], [pause(14000, 20000)]);
    expect(pausedOver).toMatchObject({ ok: true, detail: "ok: 1 hold the log ended by expiry checked against 1 fence; 1 late or missing fence excused (the holder's process was paused or crashed)" });
    expect(checkDeadline(grants, [], [pause(14000)]).ok).toBe(true); // still paused when the run ended
    expect(checkDeadline(grants, [], [crash(9000)]).ok).toBe(true); // crashed while holding, never restarted
    expect(checkDeadline(grants, [], [crash(9000, 12000)]).ok).toBe(true); // restarted before the expiry: the new incarnation never held the session
    expect(checkDeadline(grants, [], [crash(900, 1200)]).ok).toBe(true); // down when its grant was applied (an acquire in flight when it crashed)
  });

  it('does not excuse a pause that ended before the expiry (the held fence fires at the resume), nor one that began after it', () => {
    expect(checkDeadline(grants, [fence(16100)], [pause(14000, 15500)]).violations.map((v) => v.kind)).toEqual(['fence-after-expiry']);
    expect(checkDeadline(grants, [fence(16100)], [pause(16050, 17000)]).violations.map((v) => v.kind)).toEqual(['fence-after-expiry']);
    expect(checkDeadline(grants, [fence(16000, 5n)], [pause(15000, 15500)]).ok).toBe(true);
  });

  it("does not excuse another holder's outage, nor a crash and restart before the grant (a new incarnation held it)", () => {
    expect(checkDeadline(grants, [], [pause(14000, 20000, 'b')]).violations.map((v) => v.kind)).toEqual(['fence-never-called']);
    expect(checkDeadline(grants, [], [crash(200, 800)]).violations.map((v) => v.kind)).toEqual(['fence-never-called']);
    expect(checkDeadline(grants, [], [crash(16001)]).violations.map((v) => v.kind)).toEqual(['fence-never-called']); // crashed after the expiry
  });
});
