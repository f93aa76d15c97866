import { describe, expect, it } from 'vitest';
import { quorumRequestProblems } from './quorum-pricing.js';

describe('quorum pricing requests', () => {
  it('names each wrong field; runs may be left out (one per member)', () => {
    expect(quorumRequestProblems({ samplesPerRun: 300 })).toEqual([]);
    expect(quorumRequestProblems({ samplesPerRun: 9, runs: 51 }).map((p) => p.field)).toEqual(['runs', 'samplesPerRun']);
    expect(quorumRequestProblems({ samplesPerRun: 10_001, runs: 1.5 }).map((p) => p.field)).toEqual(['runs', 'samplesPerRun']);
  });
});
