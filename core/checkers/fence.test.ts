import { describe, expect, it } from 'vitest';
import { checkFence } from './fence.js';
import type { ResourceSpec, ResourceWrite } from './run-history.js';

const resources: ResourceSpec[] = [
  { name: 'ledger-db', fenced: true },
  { name: 'legacy-nfs', fenced: false },
];
const write = (resource: string, holder: string, token: bigint, atMs: number, accepted = true, endMs?: number): ResourceWrite => ({
  resource,
  key: 'k',
  holder,
  token,
  atMs,
  accepted,
  ...(endMs === undefined ? {} : { endMs }),
});

describe('fence: a fenced resource never accepts a token below its mark (ADR-16)', () => {
  it('passes a stale holder that was rejected, and repeated writes with one token', () => {
    const writes = [write('ledger-db', 'a', 5n, 10), write('ledger-db', 'a', 5n, 11), write('ledger-db', 'b', 9n, 20), write('ledger-db', 'a', 5n, 30, false), write('ledger-db', 'b', 9n, 31)];
    expect(checkFence(writes, resources)).toMatchObject({ name: 'fence', ok: true, detail: 'ok: 5 writes to 1 resource checked' });
  });

  it('passes a stale holder accepted before the new holder wrote: the resource saw token order', () => {
    expect(checkFence([write('ledger-db', 'a', 5n, 10), write('ledger-db', 'a', 5n, 25), write('ledger-db', 'b', 9n, 30)], resources).ok).toBe(true);
  });

  it('finds a lower token accepted after a higher one, naming both', () => {
    const result = checkFence([write('ledger-db', 'b', 9n, 20), write('ledger-db', 'a', 5n, 30)], resources);
    expect(result.violations).toEqual([
      {
        kind: 'fence-accepted-below-mark',
        key: 'k',
        message: 'key k: fenced resource ledger-db accepted token 5 from a at 30 ms, below its high-water mark 9 (set by holder b (token 9) at 20 ms); a fence accepts only tokens at or above its mark (ADR-16)',
        involved: [
          { holder: 'b', token: '9' },
          { holder: 'a', token: '5' },
        ],
        atMs: 30,
        resource: 'ledger-db',
      },
    ]);
  });

  it('keeps a mark per (resource, key)', () => {
    expect(checkFence([write('ledger-db', 'b', 9n, 20), { ...write('ledger-db', 'a', 5n, 30), key: 'other-row' }], resources).ok).toBe(true);
  });

  it('refuses writes to a resource the run did not declare', () => {
    expect(() => checkFence([write('mystery', 'a', 5n, 1)], resources)).toThrow(/resource mystery is written to but not declared/);
  });
});

describe('fence: an unfenced resource must not take writes from two holders at once (ADR-01)', () => {
  it('passes a holder writing again with its own token after a pause, while nobody newer has written', () => {
    expect(checkFence([write('legacy-nfs', 'a', 5n, 10), write('legacy-nfs', 'a', 5n, 30), write('legacy-nfs', 'b', 9n, 40)], resources).ok).toBe(true);
  });

  it('passes holders that write one after the other, and a handover at one instant', () => {
    expect(checkFence([write('legacy-nfs', 'a', 5n, 10, true, 15), write('legacy-nfs', 'a', 5n, 16, true, 20), write('legacy-nfs', 'b', 9n, 20, true, 25)], resources).ok).toBe(true);
  });

  it('finds interleaved writes, naming both holders and their spans', () => {
    const result = checkFence([write('legacy-nfs', 'a', 5n, 10), write('legacy-nfs', 'b', 9n, 20, true, 22), write('legacy-nfs', 'a', 5n, 30)], resources);
    expect(result.violations.map((v) => v.message)).toEqual([
      'key k: unfenced resource legacy-nfs took writes from two holders at once: holder a (token 5) wrote from 10 ms to 30 ms (2 writes) and holder b (token 9) from 20 ms to 22 ms (1 write) (ADR-01)',
      "key k: unfenced resource legacy-nfs took writes from two holders at once: a stale write, token 5 from a at 30 ms, after holder b (token 9) had written at 20 ms, overwrote the newer holder's write; a fence would have refused it (ADR-16, ADR-01)",
    ]);
  });

  it('finds a stale holder\'s single write after the newer holder wrote: a lost update without interleaving spans (ADR-17)', () => {
    const result = checkFence([write('legacy-nfs', 'b', 9n, 20, true, 22), write('legacy-nfs', 'a', 5n, 30, true, 32)], resources);
    expect(result.violations).toEqual([
      {
        kind: 'unfenced-stale-write',
        key: 'k',
        message: "key k: unfenced resource legacy-nfs took writes from two holders at once: a stale write, token 5 from a at 30 ms, after holder b (token 9) had written at 20 ms, overwrote the newer holder's write; a fence would have refused it (ADR-16, ADR-01)",
        involved: [
          { holder: 'b', token: '9' },
          { holder: 'a', token: '5' },
        ],
        atMs: 30,
        resource: 'legacy-nfs',
      },
    ]);
  });

  it('finds two instantaneous writes at the same moment, and ignores refused writes', () => {
    expect(checkFence([write('legacy-nfs', 'a', 5n, 10), write('legacy-nfs', 'b', 9n, 10)], resources).violations).toHaveLength(1);
    expect(checkFence([write('legacy-nfs', 'a', 5n, 10), write('legacy-nfs', 'b', 9n, 15, false), write('legacy-nfs', 'a', 5n, 20)], resources).ok).toBe(true);
  });
});
