import { describe, expect, it } from 'vitest';
import { DocumentSyntaxError, documentFromValue, parseDocuments } from './documents.js';

function syntaxError(text: string): DocumentSyntaxError {
  try {
    parseDocuments(text, 'bad.yaml');
  } catch (error) {
    if (error instanceof DocumentSyntaxError) return error;
    throw error;
  }
  throw new Error('expected a DocumentSyntaxError');
}

describe('parseDocuments', () => {
  it('splits a multi-document file, keeping each document\'s position and start line', () => {
    const text = ['# two documents', 'kind: LockClass', 'metadata:', '  name: a', '---', 'kind: PauseTestResult', 'spec:', '  passed: true', ''].join('\n');
    const { documents } = parseDocuments(text, 'pair.yaml');
    expect(documents.map((d) => ({ source: d.source, index: d.index, line: d.line, value: d.value }))).toEqual([
      { source: 'pair.yaml', index: 0, line: 2, value: { kind: 'LockClass', metadata: { name: 'a' } } },
      { source: 'pair.yaml', index: 1, line: 6, value: { kind: 'PauseTestResult', spec: { passed: true } } },
    ]);
  });

  it('records the line of every field, list items included', () => {
    const text = ['spec:', '  identity: x', '  prefixes:', '    - a/', '    - b/', ''].join('\n');
    const [document] = parseDocuments(text, 'g.yaml').documents;
    expect(Object.fromEntries(document!.fieldLines!)).toEqual({
      spec: 1,
      'spec.identity': 2,
      'spec.prefixes': 3,
      'spec.prefixes.0': 4,
      'spec.prefixes.1': 5,
    });
  });

  it('skips empty documents (a leading or trailing ---) and returns none for an empty file', () => {
    expect(parseDocuments('---\na: 1\n---\n', 'x.yaml').documents.map((d) => d.value)).toEqual([{ a: 1 }]);
    expect(parseDocuments('', 'x.yaml').documents).toEqual([]);
    expect(parseDocuments('# only a comment\n', 'x.yaml').documents).toEqual([]);
  });

  it('reads dates as strings and yes/no as strings (YAML 1.2), so no field changes type behind the author', () => {
    const [document] = parseDocuments('ranAt: 2026-11-01\npassed: yes\nttl: 015\n', 'x.yaml').documents;
    expect(document!.value).toEqual({ ranAt: '2026-11-01', passed: 'yes', ttl: 15 });
  });

  it('throws DocumentSyntaxError with the source, line and column of unreadable YAML', () => {
    const error = syntaxError('apiVersion: lockstep.dev/v1\nkind: LockClass\nspec:\n\tpurpose: correctness\n');
    expect(error.source).toBe('bad.yaml');
    expect(error.line).toBe(4);
    expect(error.column).toBe(1);
    expect(error.reason).toMatch(/tab/i);
    expect(error.message).toBe(`bad.yaml:4:1: not readable YAML: ${error.reason}`);
  });

  it('refuses a duplicate key, which would silently keep only one of two values', () => {
    const error = syntaxError('spec:\n  ttlSeconds: 10\n  ttlSeconds: 60\n');
    expect(error.line).toBe(3);
    expect(error.reason).toMatch(/unique/i);
  });

  it('reports a syntax error in a later document with that document\'s line', () => {
    const error = syntaxError('a: 1\n---\nb: 2\n---\nc: [1, 2\nd: 3\n');
    expect(error.line).toBeGreaterThanOrEqual(5);
  });

  it('builds a document from a value, without line numbers', () => {
    expect(documentFromValue({ kind: 'LockClass' }, 'scenario', 2)).toEqual({ source: 'scenario', index: 2, value: { kind: 'LockClass' } });
  });
});
