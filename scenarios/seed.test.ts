import { describe, expect, it } from 'vitest';
import { checkSeed, SeedError } from './seed.js';

describe('checkSeed', () => {
  it.each(['0', '1', '7', ' 42 ', '9007199254740991'])('accepts %j', (text) => {
    expect(checkSeed(text)).toBe(text.trim());
  });

  it.each(['', ' ', '-1', 'abc', '1e309', '1e3', '007', '7.0', '+7', '0x10', '9007199254740992', 'Infinity'])('refuses %j, naming the rule', (text) => {
    expect(() => checkSeed(text)).toThrow(SeedError);
    expect(() => checkSeed(text)).toThrow(`seed ${JSON.stringify(text)} is not a seed; give a whole number from 0 to 9007199254740991`);
    expect(() => checkSeed(text, '--seed')).toThrow(`--seed ${JSON.stringify(text)} is not a seed`);
  });

  it('refuses a seed that is not text (an artifact field)', () => {
    expect(() => checkSeed(7, 'run.json: seed')).toThrow('run.json: seed 7 is not a seed');
    expect(() => checkSeed(undefined)).toThrow(SeedError);
  });
});
