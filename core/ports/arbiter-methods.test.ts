import { describe, expect, it } from 'vitest';
import { ARBITER_METHOD_NAMES, MUTATING_ARBITER_METHODS } from './arbiter-methods.js';

describe('the ArbiterApi method list', () => {
  it('lists the port in its order; the mutating ones are those whose lost answer may have taken effect', () => {
    expect(ARBITER_METHOD_NAMES).toEqual(['openSession', 'keepAlive', 'closeSession', 'acquire', 'release', 'validate', 'inspect', 'describeKey', 'requestForceRelease', 'approveForceRelease', 'requestEpochAdvance', 'approveEpochAdvance', 'status']);
    expect([...MUTATING_ARBITER_METHODS]).toEqual(['openSession', 'closeSession', 'acquire', 'release', 'requestForceRelease', 'approveForceRelease', 'requestEpochAdvance', 'approveEpochAdvance']);
  });

  it('is checked by the compiler: a list missing a method of the port does not type-check (negative control)', () => {
    type Listed = Record<(typeof ARBITER_METHOD_NAMES)[number], true>;
    // @ts-expect-error -- status is left out, so the object does not satisfy the Record over every method
    const missing = { openSession: true } satisfies Listed;
    expect(missing).toBeDefined();
  });
});
