import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { closestName, describe as describeValue, readFields, rule } from './fields.js';

const table = {
  colour: rule(z.enum(['red', 'blue']), { required: true, expected: 'red or blue', fix: 'pick a colour' }),
  size: rule(z.number().int(), { required: false, defaultValue: 3, expected: 'a whole number', fix: 'give a size' }),
  note: rule(z.string(), { required: false, expected: 'text', fix: 'write a note' }),
};

describe('readFields', () => {
  it('returns valid values and defaults, and which fields were given', () => {
    const reading = readFields({ colour: 'red' }, 'spec', 'a thing', table);
    expect(reading.values).toEqual({ colour: 'red', size: 3 });
    expect([...reading.given]).toEqual(['colour']);
    expect(reading.problems).toEqual([]);
  });

  it('reports a missing required field, a wrong value and an unknown field together', () => {
    const reading = readFields({ size: 'big', nte: 'x' }, 'spec', 'a thing', table);
    expect(reading.problems).toEqual([
      { field: 'spec.colour', message: 'is missing; it is required and must be red or blue', fix: 'pick a colour' },
      { field: 'spec.size', message: 'is "big"; it must be a whole number', fix: 'give a size' },
      { field: 'spec.nte', message: expect.stringMatching(/^is not a field of a thing; did you mean note\?/), fix: 'rename it to note' },
    ]);
    expect(reading.given.has('size')).toBe(true);
    expect(reading.values).toEqual({});
  });

  it('treats an empty value (null) as absent', () => {
    expect(readFields({ colour: 'blue', size: null }, 'spec', 'a thing', table).values).toEqual({ colour: 'blue', size: 3 });
  });

  it('reports a value that is not a mapping at all', () => {
    expect(readFields(['red'], 'spec', 'a thing', table).problems).toEqual([
      { field: 'spec', message: 'is a list; a thing must be a mapping', fix: 'write spec as a mapping of the fields colour, size, note' },
    ]);
  });
});

describe('closestName', () => {
  const known = ['purpose', 'enforcement', 'resource', 'riskOwner', 'waiverExpires', 'ttlSeconds', 'tier', 'onQuorumLoss', 'fairness'];

  it.each([
    ['ttlSecond', 'ttlSeconds'],
    ['ttl_seconds', 'ttlSeconds'],
    ['riskowner', 'riskOwner'],
    ['enforcment', 'enforcement'],
    ['waiverExpiry', 'waiverExpires'],
    ['teir', 'tier'],
  ])('suggests %s -> %s', (typo, expected) => {
    expect(closestName(typo, known)).toBe(expected);
  });

  it.each(['colour', 'ttl', 'x'])('suggests nothing for %s, which is not a likely typo', (name) => {
    expect(closestName(name, known)).toBeUndefined();
  });
});

describe('describe', () => {
  it('renders values unambiguously and briefly', () => {
    expect(describeValue('60')).toBe('"60"');
    expect(describeValue(60)).toBe('60');
    expect(describeValue(false)).toBe('false');
    expect(describeValue({ a: 1 })).toBe('a mapping');
    expect(describeValue('x'.repeat(100))).toHaveLength(62);
  });
});
