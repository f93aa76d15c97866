import { describe, expect, it } from 'vitest';
import { SIM_MODEL_VERSION } from '../sim/model-version.js';
import { type ComputedRun, compareReplay, recordSentence, runSentence } from './replay-comparison.js';

const replayed: ComputedRun = {
  ok: false,
  traceHash: '854067d1bb3a8ae3',
  checks: [
    { name: 'exclusion', ok: true, detail: 'ok: 2 grants' },
    { name: 'fence', ok: false, detail: '1 violation: two holders at once' },
  ],
  history: { grants: [{ token: 281474976710660n }] },
  simModel: SIM_MODEL_VERSION,
};
/** The same run as its saved file has it: bigints as decimal strings. */
const honest = { ok: false, traceHash: '854067d1bb3a8ae3', checks: replayed.checks.map((c) => ({ ...c })), history: { grants: [{ token: '281474976710660' }] }, simModel: SIM_MODEL_VERSION };

describe('compareReplay: one comparison for lockstep replay and the workbench (issue 18)', () => {
  it('an honest artifact is the same run, and its record is the replay\'s', () => {
    const c = compareReplay(honest, replayed);
    expect([c.run, c.recordMatches, c.checkDifferences]).toEqual(['same-trace', true, []]);
    expect(runSentence(c)).toBe('same trace hash 854067d1bb3a8ae3');
    expect(recordSentence(c)).toBe("the artifact's verdict (VIOLATION: fence) and checks are the replay's");
  });

  it('a forged verdict keeps the trace hash, and is flagged: the hash says nothing about the checks written beside it', () => {
    const forged = { ...honest, ok: true, checks: honest.checks.map((c) => ({ ...c, ok: true })) };
    const c = compareReplay(forged, replayed);
    expect([c.run, c.recordMatches, c.recordedVerdict, c.replayedVerdict]).toEqual(['same-trace', false, 'ok', 'VIOLATION: fence']);
    expect(c.checkDifferences).toEqual(['fence: the artifact says ok, the replay FAIL']);
    expect(recordSentence(c)).toBe('this artifact says ok; replaying it gives VIOLATION: fence (fence: the artifact says ok, the replay FAIL); the trace hash is the same, so the run is, and the verdict or checks written beside it were edited after the run');
  });

  it('flags a verdict that disagrees with its own checks, a changed detail, and missing, extra or repeated checks', () => {
    expect(compareReplay({ ...honest, ok: true }, replayed)).toMatchObject({ recordMatches: false, recordedVerdict: 'ok', checkDifferences: [] });
    const [exclusion, fence] = honest.checks as [typeof honest.checks[0], typeof honest.checks[0]];
    expect(compareReplay({ ...honest, checks: [exclusion, { ...fence, detail: 'something else' }] }, replayed).checkDifferences).toEqual(["fence: both FAIL, but the artifact's detail differs from the replay's"]);
    expect(compareReplay({ ...honest, checks: [fence] }, replayed).checkDifferences).toEqual(['exclusion: not in the artifact, the replay says ok']);
    expect(compareReplay({ ...honest, checks: [exclusion, fence, fence] }, replayed).checkDifferences).toEqual(['fence: listed 2 times in the artifact']);
    expect(compareReplay({ ...honest, checks: [...honest.checks, { name: 'made-up', ok: true, detail: '' }] }, replayed).checkDifferences).toEqual(['made-up: in the artifact (ok), not a check of the replay']);
    expect(compareReplay({ ...honest, checks: 'all fine' }, replayed)).toMatchObject({ recordMatches: false, checkDifferences: ['the artifact has no list of checks {name, ok, detail}'] });
    expect(compareReplay({ ...honest, ok: 'yes' }, replayed)).toMatchObject({ recordMatches: false, recordedVerdict: 'no verdict (ok is not true or false)' });
  });

  it('quotes text from the artifact with controls and bidi controls escaped, so a crafted check name cannot rewrite the line that shows it', () => {
    const crafted = '\u001b[2Kfence\u202E';
    const c = compareReplay({ ...honest, checks: [...honest.checks, { name: crafted, ok: false, detail: '' }], traceHash: 'ab\u202Ecd' }, replayed);
    const said = `${runSentence(c)} ${recordSentence(c)}`;
    expect(said).toContain('"\\u001b[2Kfence\\u202e": in the artifact (FAIL)');
    expect(said).toContain('the saved "ab\\u202ecd"');
    for (const raw of ['\u001b', '\u202E']) expect(said).not.toContain(raw);
  });

  it('tells a run saved by another version (same history and checks, another hash) from another run', () => {
    const other = compareReplay({ ...honest, traceHash: '0000000000000000' }, replayed);
    expect([other.run, other.recordMatches]).toEqual(['same-history', true]);
    expect(runSentence(other)).toMatch(/^trace hash 854067d1bb3a8ae3 differs from the saved 0000000000000000, but the history and every check are identical/);
    const changed = compareReplay({ ...honest, traceHash: '0000000000000000', history: { grants: [] } }, replayed);
    expect(changed.run).toBe('different');
    expect(runSentence(changed)).toMatch(/DIFFERS from the saved 0000000000000000, and so do the history or the checks/);
    // A changed check is another run too when the hash differs, and it is still named.
    const edited = compareReplay({ ...honest, traceHash: '0000000000000000', ok: true, checks: honest.checks.map((c) => ({ ...c, ok: true })) }, replayed);
    expect([edited.run, edited.recordMatches]).toEqual(['different', false]);
    expect(recordSentence(edited)).toBe('this artifact says ok; replaying it gives VIOLATION: fence (fence: the artifact says ok, the replay FAIL)');
  });

  it('says plainly that an artifact of an older model is not reproduced, even when its history and checks are the same (issue 32)', () => {
    const { simModel: _saved, ...unversioned } = honest;
    for (const old of [unversioned, { ...honest, simModel: 1 }]) {
      const c = compareReplay({ ...old, traceHash: '0000000000000000' }, replayed);
      expect([c.run, c.recordedModel, c.replayedModel]).toEqual(['other-model', 1, SIM_MODEL_VERSION]);
      expect(runSentence(c)).toMatch(new RegExp(`^NOT reproduced: the artifact was recorded by an older simulator model \\(model 1; this lockstep simulates model ${SIM_MODEL_VERSION}\\)`));
      expect(runSentence(c)).not.toMatch(/same trace|identical/);
    }
    expect(compareReplay({ ...honest, simModel: 'two', traceHash: '0000000000000000' }, replayed).recordedModel).toBe(0);
    // The control: the same model with the same history is the 'same-history' case above, not this one.
    expect(compareReplay({ ...honest, traceHash: '0000000000000000' }, replayed).run).toBe('same-history');
    // An older artifact whose hash is the same is the same run: the model change did not touch it.
    expect(compareReplay(unversioned, replayed).run).toBe('same-trace');
  });
});
