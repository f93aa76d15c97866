import { describe, expect, it } from 'vitest';
import { compareReplay } from '../../scenarios/replay-comparison.js';
import { recordWarning, replayNote } from './replay-compare.js';
import { SAMPLE_ARTIFACT } from './sample-artifact.fixture.js';

const saved = SAMPLE_ARTIFACT;

describe('the page\'s words for a replay', () => {
  it('says a run is reproduced exactly only when the hash and the record both agree', () => {
    const same = compareReplay(saved, saved);
    expect(replayNote(same, 'Replayed')).toBe("Replayed: same trace hash 60de3a830aece9c0; the artifact's verdict (VIOLATION: fence) and checks are the replay's, so the run is reproduced exactly. Shown: the replay's checks and timeline.");
    expect(recordWarning(same)).toBeUndefined();
  });

  it('warns, on its own line, when the artifact says ok and the replay fails, although the hash matches', () => {
    const forged = compareReplay({ ...saved, ok: true, checks: [{ name: 'fence', ok: true, detail: 'two writers' }] }, saved);
    expect(replayNote(forged, 'Replayed')).toBe("Replayed: same trace hash 60de3a830aece9c0. Shown: the replay's checks and timeline.");
    expect(recordWarning(forged)).toBe("This artifact says ok; replaying it gives VIOLATION: fence (fence: the artifact says ok, the replay FAIL); the trace hash is the same, so the run is, and the verdict or checks written beside it were edited after the run. The checks shown are the replay's.");
  });

  it('says when the replay is another run', () => {
    const other = compareReplay({ ...saved, traceHash: 'ab3a54711a6b9076', history: {} }, saved);
    expect(replayNote(other, 'Replayed')).toMatch(/^Replayed: trace hash 60de3a830aece9c0 DIFFERS from the saved ab3a54711a6b9076.*Shown: the replay's checks and timeline\.$/);
  });
});
