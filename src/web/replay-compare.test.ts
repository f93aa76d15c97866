import { describe, expect, it } from 'vitest';
import { compareReplay, replayNote } from './replay-compare.js';
import { SAMPLE_ARTIFACT } from './sample-artifact.fixture.js';

const saved = SAMPLE_ARTIFACT;

describe('compareReplay', () => {
  it('is same-trace when the hashes match', () => {
    expect(compareReplay(saved, { ...saved })).toBe('same-trace');
  });

  it('is same-history when only the hash differs', () => {
    expect(compareReplay(saved, { ...saved, traceHash: 'ab3a54711a6b9076' })).toBe('same-history');
  });

  it('is different when a check or the history differs as well', () => {
    expect(compareReplay(saved, { ...saved, traceHash: 'ab3a54711a6b9076', checks: [{ name: 'fence', ok: true, detail: 'ok' }] })).toBe('different');
    expect(compareReplay(saved, { ...saved, traceHash: 'ab3a54711a6b9076', history: { grants: [{ token: '281474976710660', grantedAtMs: 320.23 }] } })).toBe('different');
  });

  it('says in each case what the page shows', () => {
    const other = { ...saved, traceHash: 'ab3a54711a6b9076' };
    expect(replayNote('same-trace', saved, saved, '')).toMatch(/same trace hash 60de3a830aece9c0/);
    expect(replayNote('same-history', saved, other, '')).toMatch(/history and every check are identical.*ab3a54711a6b9076, saved 60de3a830aece9c0/);
    expect(replayNote('different', saved, other, '')).toMatch(/DIFFERS .* Shown: the replay/);
  });
});
