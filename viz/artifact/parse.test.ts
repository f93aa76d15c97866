import { describe, expect, it } from 'vitest';
import { sampleArtifact } from '../timeline/test-fixtures.js';
import { ArtifactFormatError, parseRunArtifact, pathText } from './parse.js';

/** The sample as JSON text would give it (the parser's real input). */
const asJson = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

function problemsOf(input: unknown): readonly string[] {
  try {
    parseRunArtifact(input);
  } catch (error) {
    if (error instanceof ArtifactFormatError) return error.problems;
    throw error;
  }
  throw new Error('parsed without complaint');
}

describe('parseRunArtifact', () => {
  it('reads a run artifact with its timeline, and one without', () => {
    const sample = asJson(sampleArtifact());
    const parsed = parseRunArtifact(sample);
    expect(parsed.history.grants.map((g) => g.token)).toEqual(['281474976710660', '281474976710663']);
    expect(parsed.timeline?.records.length).toBe((sample['timeline'] as { records: unknown[] }).records.length);
    const { timeline: _dropped, ...bare } = sample;
    expect(parseRunArtifact(bare).timeline).toBeUndefined();
  });

  it('names the field, what was expected and what was found', () => {
    const sample = asJson(sampleArtifact());
    const checks = sample['checks'] as Record<string, unknown>[];
    checks.push({ name: 'belief', ok: true, detail: '', violations: [] });
    (checks[2] as Record<string, unknown>)['ok'] = 'yes';
    expect(problemsOf(sample)).toEqual(['checks[2].ok: expected true or false, found "yes"']);
  });

  it('says a missing field is missing, and a token must be a decimal string', () => {
    const sample = asJson(sampleArtifact());
    const history = sample['history'] as Record<string, unknown>;
    const grants = history['grants'] as Record<string, unknown>[];
    (grants[0] as Record<string, unknown>)['token'] = '0x10';
    delete sample['simulatedMs'];
    const problems = problemsOf(sample);
    expect(problems).toContain('simulatedMs: expected a number, found nothing (the field is missing)');
    expect(problems.find((p) => p.startsWith('history.grants[0].token: expected'))).toMatch(/found "0x10"/);
  });

  it('stops at the format when the file is something else, and refuses what is not an object', () => {
    expect(problemsOf({ format: 'lockstep.explore/1', runs: [] })).toEqual(['format: expected "lockstep.run/1", found "lockstep.explore/1"']);
    expect(problemsOf([1, 2])).toEqual(['the artifact: expected a JSON object, found a list of 2']);
    expect(() => parseRunArtifact(null)).toThrow(/lockstep run --out/);
  });

  it('lists at most five problems and counts the rest', () => {
    const sample = asJson(sampleArtifact());
    for (const field of ['scenario', 'variant', 'seed', 'traceHash', 'replay', 'ok', 'asDeclared']) delete sample[field];
    let error: unknown;
    try {
      parseRunArtifact(sample);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ArtifactFormatError);
    expect((error as ArtifactFormatError).problems).toHaveLength(5);
    expect((error as Error).message).toMatch(/and 2 more/);
  });

  it('spells paths the way the JSON is read', () => {
    expect(pathText(['history', 'grants', 3, 'endedAtMs'])).toBe('history.grants[3].endedAtMs');
    expect(pathText([])).toBe('the artifact');
  });
});
