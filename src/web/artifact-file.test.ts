import { describe, expect, it } from 'vitest';
import { ArtifactLoadError, artifactFileName, artifactText, parseArtifactText } from './artifact-file.js';
import { SAMPLE_ARTIFACT } from './sample-artifact.fixture.js';

const artifact = SAMPLE_ARTIFACT;

describe('run artifact files', () => {
  it('reads back what it writes, bigints as decimal strings', () => {
    const text = artifactText({ ...artifact, token: 281474976710660n });
    expect(text).toContain('"token": "281474976710660"');
    expect(parseArtifactText(text, 'run.json')).toMatchObject({ scenario: 'pause-test', token: '281474976710660' });
  });

  it.each([
    ['not json', /run\.json: \(file\) is not JSON/],
    ['[1, 2]', /\(file\) is not a JSON object/],
    [JSON.stringify({ ...artifact, format: 'lockstep.explore/1' }), /format is "lockstep.explore\/1", not "lockstep.run\/1"/],
    [JSON.stringify({ ...artifact, seed: 7 }), /seed must be a non-empty string/],
    [JSON.stringify({ ...artifact, checks: [{ name: 'fence' }] }), /checks\[0\] must be \{name: string, ok: boolean, detail: string\}/],
    [JSON.stringify({ ...artifact, faults: 'none' }), /faults must be a list/],
  ])('refuses %s, naming the source and the field, and saying what to load instead', (text, message) => {
    const attempt = () => parseArtifactText(text, 'run.json');
    expect(attempt).toThrow(ArtifactLoadError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(/written by Save or by lockstep run --out/);
  });

  it('names a saved file after its scenario, variant and seed, with nothing a file system would refuse', () => {
    expect(artifactFileName({ scenario: 'pause-test', variant: 'a/b c', seed: '1' })).toBe('pause-test-a_b_c-seed-1.json');
  });
});
