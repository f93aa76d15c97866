import { describe, expect, it } from 'vitest';
import type { UnprotectedRecord } from '../ports/spool.js';
import type { BeliefInterval } from './run-history.js';
import { type UnprotectedRun, checkUnprotected } from './unprotected.js';

const CACHE = 'cache/warm-1';
const LEDGER = 'payments/ledger-7';
const record = (id: string, kind: 'grant' | 'end', identity: string, grantId = id): UnprotectedRecord => ({ id, kind, grantId, arbiterId: 'arbiter-1', key: CACHE, namespace: 'cache', className: 'warm', identity, instance: '', atMs: 1, ...(kind === 'end' ? { endReason: 'release' as const } : {}) });
const belief = (holder: string, key: string, token: bigint, fromMs: number, toMs: number): BeliefInterval => ({ holder, key, token, fromMs, toMs });

const SPOOLED = [record('a/1/1', 'grant', 'dave'), record('a/1/2', 'end', 'dave', 'a/1/1'), record('a/1/3', 'grant', 'erin'), record('a/1/4', 'end', 'erin', 'a/1/3')];
const run = (over: Partial<UnprotectedRun> = {}): UnprotectedRun => ({ spooled: SPOOLED, stored: SPOOLED, closed: (key) => key.startsWith('payments/'), ...over });
/** An etcd grant before the outage, two from memory during it (overlapping the first: the price declared), one from etcd after. */
const HONEST = [belief('dave', CACHE, 5n, 0, 3_000), belief('dave', CACHE, 0n, 2_000, 4_000), belief('erin', CACHE, 0n, 4_000, 6_000), belief('erin', CACHE, 9n, 7_000, 8_000), belief('alice', LEDGER, 6n, 0, 2_500)];

const kinds = (beliefs: readonly BeliefInterval[], over: Partial<UnprotectedRun> = {}) => checkUnprotected(beliefs, run(over)).violations.map((v) => v.kind);

describe('checkUnprotected (ADR-04)', () => {
  it('passes an outage whose grants from memory overlap only where one is unprotected, all shipped once', () => {
    const result = checkUnprotected(HONEST, run());
    expect(result.detail).toBe('ok: 2 unprotected belief spans and 2 spooled grants against 4 stored records');
    expect(result.ok).toBe(true);
  });

  it('negative control: two etcd grants believed at once are a violation', () => {
    expect(kinds([...HONEST, belief('frank', CACHE, 10n, 7_500, 9_000)])).toEqual(['protected-overlap']);
  });

  it('negative control: a correctness class granted from memory', () => {
    const granted = record('a/1/5', 'grant', 'alice');
    const spooled = [...SPOOLED, { ...granted, key: LEDGER }];
    expect(kinds([...HONEST, belief('alice', LEDGER, 0n, 3_000, 4_000)], { spooled, stored: spooled })).toEqual(['closed-class-unprotected']);
  });

  it('negative control: a spooled record the store never got, and a grant from memory no spool recorded', () => {
    expect(kinds(HONEST, { stored: SPOOLED.slice(0, 3) })).toEqual(['unprotected-lost']);
    expect(kinds([...HONEST, belief('frank', CACHE, 0n, 6_000, 6_500)])).toEqual(['unprotected-lost']);
  });

  it('negative control: a record stored twice, and a grant ended twice under two ids', () => {
    expect(kinds(HONEST, { stored: [...SPOOLED, SPOOLED[0] as UnprotectedRecord] })).toEqual(['unprotected-twice']);
    const twiceEnded = [...SPOOLED, record('a/2/1', 'end', 'dave', 'a/1/1')];
    expect(kinds(HONEST, { spooled: twiceEnded, stored: twiceEnded })).toEqual(['unprotected-twice']);
  });
});
