import { describe, expect, it } from 'vitest';
import { compareFaultEffects, measureFaultEffects } from './fault-effects.js';
import type { HistoryEvent } from './history.js';

/** A history written as the gate writes one: each operation an invoke and a completion. */
class Builder {
  readonly events: HistoryEvent[] = [];
  private next = 100;
  op(process: string, f: string, key: string, at: number, done: number, type: 'ok' | 'fail' | 'info', input: unknown = null, output: unknown = null): this {
    this.events.push({ process, type: 'invoke', f, key, value: input, time: at }, { process, type, f, key, value: output, time: done });
    return this;
  }
  /** A hold of `key` by `process` from its grant at `grantAt` to its release invoked at `releaseAt` (none: never released). */
  hold(process: string, key: string, grantAt: number, releaseAt?: number): string {
    const token = String(this.next++);
    this.op(process, 'acquire', key, grantAt - 2, grantAt, 'ok', null, { token });
    if (releaseAt !== undefined) this.op(process, 'release', key, releaseAt, releaseAt + 2, 'ok', { token }, { released: true });
    return token;
  }
  expire(key: string, token: string, at: number): this {
    this.events.push({ process: 'log', type: 'ok', f: 'expire', key, value: { token }, time: at });
    return this;
  }
}

describe('measureFaultEffects', () => {
  it("measures the time to the next grant, the victim's key's next grant and its fence", () => {
    const h = new Builder();
    const aliceToken = h.hold('alice', 'k1', 1_000); // alice holds k1 when she is paused at 2 s ...
    h.expire('k1', aliceToken, 7_000); // ... the log expires her hold ...
    h.hold('bob', 'k2', 3_500, 3_900); // another key is granted 1.5 s after the pause
    h.hold('bob', 'k1', 7_200, 7_600); // ... and k1 again 5.2 s after it
    h.op('alice', 'write', 'k1', 9_000, 9_010, 'fail', { token: aliceToken }, { refused: 'fence' }); // alice wakes: refused
    const fences = [{ holder: 'alice', key: 'k1', token: BigInt(aliceToken), atMs: 6_100 }];
    const { perFault, perKind } = measureFaultEffects(h.events, [{ atMs: 2_000, kind: 'pause', target: 'alice' }], { fences, windowMs: 10_000 });
    expect(perFault[0]).toMatchObject({ victimHold: { key: 'k1', token: aliceToken }, nextGrantMs: 1_500, victimKeyGrantMs: 5_200, fenceMs: 4_100, grants: 2, refusals: 0, writesAccepted: 0, writesRefused: 1 });
    expect(perKind).toEqual([expect.objectContaining({ kind: 'pause', faults: 1, nextGrant: { count: 1, min: 1_500, median: 1_500, max: 1_500 } })]);
  });

  it('counts only what falls in the window, and reads fault times from the origin', () => {
    const h = new Builder();
    h.hold('bob', 'k1', 10_500, 10_700);
    h.hold('bob', 'k1', 12_000, 12_100);
    h.op('carol', 'acquire', 'k1', 11_000, 11_900, 'fail', null, { error: 'contended' });
    const [effect] = measureFaultEffects(h.events, [{ atMs: 500, kind: 'crash', target: 'etcd-1' }], { originMs: 10_000, windowMs: 1_500 }).perFault; // [10.5 s, 12 s): the grant at 12 s is out
    expect(effect).toMatchObject({ atMs: 10_500, nextGrantMs: 0, grants: 1, refusals: 1, victimHold: undefined, victimKeyGrantMs: undefined, fenceMs: undefined });
  });

  it("does not take a victim's hold it had released before the fault, nor a fence before the fault", () => {
    const h = new Builder();
    const token = h.hold('alice', 'k1', 1_000, 1_500);
    const fences = [{ holder: 'alice', key: 'k1', token: BigInt(token), atMs: 1_800 }];
    const [effect] = measureFaultEffects(h.events, [{ atMs: 2_000, kind: 'pause', target: 'alice' }], { fences }).perFault;
    expect(effect?.victimHold).toBeUndefined();
    expect(effect?.fenceMs).toBeUndefined();
    expect(effect?.nextGrantMs).toBeUndefined(); // nothing was granted after the fault
  });

  it('without a victim, takes the first fence of any hold open at the fault (a leader pause cuts every holder off)', () => {
    const h = new Builder();
    const a = h.hold('alice', 'k1', 1_000);
    const b = h.hold('bob', 'k2', 1_100);
    const fences = [{ holder: 'bob', key: 'k2', token: BigInt(b), atMs: 5_000 }, { holder: 'alice', key: 'k1', token: BigInt(a), atMs: 4_500 }];
    const [effect] = measureFaultEffects(h.events, [{ atMs: 2_000, kind: 'pause', target: 'etcd-0' }], { fences }).perFault;
    expect(effect?.fenceMs).toBe(2_500);
  });

  it("charges a bystander's fence to a fault only within the window; the victim's whenever it comes", () => {
    const h = new Builder();
    const a = h.hold('alice', 'k1', 1_000); // open at both faults, fenced 20 s after the first by something later
    const fences = [{ holder: 'alice', key: 'k1', token: BigInt(a), atMs: 22_000 }];
    const [bystander, victim] = measureFaultEffects(h.events, [{ atMs: 2_000, kind: 'pause', target: 'etcd-0' }, { atMs: 2_000, kind: 'pause', target: 'alice' }], { fences, windowMs: 10_000 }).perFault;
    expect(bystander?.fenceMs).toBeUndefined();
    expect(victim?.fenceMs).toBe(20_000); // a holder paused 20 s fences when it wakes
    // Control: the same bystander fence inside the window is the fault's.
    const [inside] = measureFaultEffects(h.events, [{ atMs: 13_000, kind: 'pause', target: 'etcd-0' }], { fences, windowMs: 10_000 }).perFault;
    expect(inside?.fenceMs).toBe(9_000);
  });

  it('summarises a kind over its faults by nearest rank, and a re-entry is not a grant', () => {
    const h = new Builder();
    for (const at of [1_300, 2_100, 3_900]) h.hold('bob', 'k1', at, at + 50);
    h.op('bob', 'acquire', 'k1', 4_000, 4_010, 'ok', null, { token: '900', reentered: true });
    const faults = [1_000, 2_000, 3_000, 3_950].map((atMs) => ({ atMs, kind: 'pause', target: 'etcd-1' }));
    const [pause] = measureFaultEffects(h.events, faults).perKind;
    expect(pause?.faults).toBe(4);
    expect(pause?.nextGrant).toEqual({ count: 3, min: 100, median: 300, max: 900 }); // 300, 100, 900; the last saw no grant
  });
});

describe('compareFaultEffects', () => {
  const history = (gapMs: number): HistoryEvent[] => {
    const h = new Builder();
    h.hold('bob', 'k1', 1_000 + gapMs, 1_000 + gapMs + 50);
    return h.events;
  };
  const fault = [{ atMs: 1_000, kind: 'pause', target: 'etcd-1' }];

  it('says a prediction within 25% of the measured median is within, and one outside is not (the difference is seen)', () => {
    const measured = measureFaultEffects(history(4_000), fault);
    const close = compareFaultEffects(measured, measureFaultEffects(history(4_800), fault)).find((r) => r.figure === 'nextGrant');
    const far = compareFaultEffects(measured, measureFaultEffects(history(6_000), fault)).find((r) => r.figure === 'nextGrant');
    expect(close).toMatchObject({ kind: 'pause', measuredMedian: 4_000, predictedMedian: 4_800, ratio: 1.2, within: true });
    expect(far).toMatchObject({ measuredMedian: 4_000, predictedMedian: 6_000, ratio: 1.5, within: false });
  });

  it('names a kind only one side has, and a figure neither history shows', () => {
    const rows = compareFaultEffects(measureFaultEffects(history(1_000), fault), measureFaultEffects(history(1_000), [{ atMs: 1_000, kind: 'crash' }]));
    expect(rows.find((r) => r.kind === 'pause' && r.figure === 'nextGrant')).toMatchObject({ within: false, reason: 'not predicted: the simulated run had no fault of this kind' });
    expect(rows.find((r) => r.kind === 'crash' && r.figure === 'nextGrant')).toMatchObject({ within: false, reason: 'not measured: the real run had no fault of this kind' });
    const same = compareFaultEffects(measureFaultEffects(history(1_000), fault), measureFaultEffects(history(1_000), fault));
    expect(same.find((r) => r.figure === 'fence')).toMatchObject({ within: false, reason: 'measured history shows no fence' });
    expect(same.find((r) => r.figure === 'refusals')).toMatchObject({ measuredMedian: 0, predictedMedian: 0, within: true, reason: '' });
    const refused = new Builder();
    refused.hold('bob', 'k1', 2_000, 2_050);
    refused.op('carol', 'acquire', 'k1', 2_100, 2_200, 'fail', null, { error: 'contended' });
    const zero = compareFaultEffects(measureFaultEffects(history(1_000), fault), measureFaultEffects(refused.events, fault)).find((r) => r.figure === 'refusals');
    expect(zero).toMatchObject({ measuredMedian: 0, predictedMedian: 1, ratio: undefined, within: false, reason: 'measured 0: no ratio' });
  });
});

describe('measureFaultEffects groups', () => {
  it("summarises a kind split by the caller's group (a leader pause and a holder pause apart)", () => {
    const h = new Builder();
    h.hold('bob', 'k1', 1_100, 1_150);
    h.hold('bob', 'k1', 5_000, 5_050);
    const faults = [{ atMs: 1_000, kind: 'pause', target: 'etcd-1' }, { atMs: 2_000, kind: 'pause', target: 'alice' }];
    const rows = measureFaultEffects(h.events, faults, { groupOf: (f) => `pause ${f.target === 'alice' ? '@holder' : '@leader'}` }).perKind;
    expect(rows.map((r) => [r.kind, r.nextGrant?.median])).toEqual([['pause @leader', 100], ['pause @holder', 3_000]]);
    expect(measureFaultEffects(h.events, faults).perKind.map((r) => [r.kind, r.faults])).toEqual([['pause', 2]]);
  });
});
