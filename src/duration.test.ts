import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['45', 45_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text, '--wait')).toBe(ms);
  });

  it.each(['', 'soon', '-1s', '10 days', '1d'])('refuses %j, naming the flag and the form', (text) => {
    expect(() => parseDuration(text, '--wait')).toThrow(/--wait .* is not a duration; write it like 500ms/);
  });

  it('states a limit in the flag\'s words', () => {
    const limit = { maxMs: 600_000, why: 'the longest wait in line the arbiter allows' };
    expect(parseDuration('10m', '--wait', limit)).toBe(600_000);
    expect(() => parseDuration('99999h', '--wait', limit)).toThrow('--wait "99999h" is longer than 10m, the longest wait in line the arbiter allows; give at most 10m');
  });
});
