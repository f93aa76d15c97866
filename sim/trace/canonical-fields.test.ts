// writeCanonicalFields (the trace's per-kind key plan) must write exactly canonicalText's text, whether
// the plan fits the record, fits it in another order, or does not fit at all.
import { describe, expect, it } from 'vitest';
import { canonicalText, writeCanonicalFields, type KeyPlan } from './canonical.js';

function viaPlan(fields: object, plan: KeyPlan | undefined): { readonly text: string; readonly plan: KeyPlan | undefined } {
  const out: string[] = [];
  const next = writeCanonicalFields(fields, out, plan);
  return { text: out.join(''), plan: next };
}

describe('writeCanonicalFields', () => {
  it('writes canonicalText for a run of records whose keys change shape, order and presence', () => {
    const records: object[] = [
      { term: 2, index: 7, sync: true },
      { term: 3, index: 8, sync: false },
      { index: 9, term: 3, sync: true },
      { term: 3, index: 10, sync: undefined },
      { term: 3, index: 11, sync: true, extra: 'x' },
      { term: 3, index: 12 },
      { b: { z: 1, a: [2n, NaN] }, a: 'é' },
      {},
      [1, 2],
      new Map([['k', 1]]),
    ];
    let plan: KeyPlan | undefined;
    for (const record of records) {
      const written = viaPlan(record, plan);
      expect(written.text).toBe(canonicalText(record));
      plan = written.plan;
    }
  });

  it('keeps the plan while records fit it and makes a new one when they do not', () => {
    const first = viaPlan({ term: 1, index: 1 }, undefined).plan;
    expect(first?.sorted).toEqual(['index', 'term']);
    expect(viaPlan({ term: 2, index: 2 }, first).plan).toBe(first);
    expect(viaPlan({ index: 2, term: 2 }, first).plan?.order).toEqual(['index', 'term']);
  });

  it('leaves out keys a prototype lends to for-in, as Object.keys does', () => {
    const proto = { inherited: 1 };
    const child = Object.assign(Object.create(proto) as Record<string, unknown>, { own: 2 });
    const plan = viaPlan({ own: 0, inherited: 0 }, undefined).plan;
    expect(viaPlan(child, plan).text).toBe('{"own":2}');
  });

  it('rejects functions, naming the path, with or without a plan', () => {
    const plan = viaPlan({ handler: 1 }, undefined).plan;
    expect(() => viaPlan({ handler: () => 1 }, plan)).toThrow('$.handler is a function');
    expect(() => viaPlan({ nested: { handler: () => 1 } }, undefined)).toThrow('$.nested.handler is a function');
  });
});
