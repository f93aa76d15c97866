// Reading YAML text into documents (ADR-24: classes and grants are reviewed YAML files). Only syntax is
// checked here; what the documents mean is checkDocuments' job. Every field keeps the line it came
// from, so a problem can point into the file under review.
import { type Document, LineCounter, type Node, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { SourcedDocument } from './model.js';

/** The text is not YAML at all (or uses a construct we refuse, such as a duplicate key). */
export class DocumentSyntaxError extends Error {
  override readonly name = 'DocumentSyntaxError';
  readonly source: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  /** What is wrong, without the location. */
  readonly reason: string;

  constructor(source: string, line: number, column: number, reason: string) {
    super(`${source}:${line}:${column}: not readable YAML: ${reason}`);
    this.source = source;
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

export function isDocumentSyntaxError(error: unknown): error is DocumentSyntaxError {
  return error instanceof DocumentSyntaxError;
}

/**
 * Splits YAML text into its documents (separated by `---`). Empty documents, such as the one after a
 * trailing `---`, are skipped. Throws DocumentSyntaxError at the first syntax error, with its line.
 */
export function parseDocuments(text: string, source: string): { documents: SourcedDocument[] } {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  const yamlDocuments = Array.isArray(parsed) ? parsed : [];
  const documents: SourcedDocument[] = [];
  for (const [index, yamlDocument] of yamlDocuments.entries()) {
    throwFirstError(yamlDocument, source, lineCounter);
    const value = toPlainData(yamlDocument, source, lineCounter);
    if (value === null || value === undefined) continue;
    const fieldLines = new Map<string, number>();
    const contents = yamlDocument.contents;
    if (contents !== null) collectFieldLines(contents, '', fieldLines, lineCounter);
    const start = contents?.range?.[0];
    documents.push({
      source,
      index,
      ...(start === undefined ? {} : { line: lineCounter.linePos(start).line }),
      value,
      fieldLines,
    });
  }
  return { documents };
}

/** A document built in code rather than read from a file (tests, scenarios): no line numbers. */
export function documentFromValue(value: unknown, source: string, index = 0): SourcedDocument {
  return { source, index, value };
}

function throwFirstError(yamlDocument: Document.Parsed, source: string, lineCounter: LineCounter): void {
  const error = yamlDocument.errors[0];
  if (error === undefined) return;
  const position = error.linePos?.[0] ?? lineCounter.linePos(error.pos[0]);
  throw new DocumentSyntaxError(source, position.line, position.col, firstSentence(error.message));
}

function toPlainData(yamlDocument: Document.Parsed, source: string, lineCounter: LineCounter): unknown {
  try {
    // The default alias limit (100) stops a "billion laughs" document from expanding without bound.
    return yamlDocument.toJS();
  } catch (error) {
    const start = yamlDocument.contents?.range?.[0] ?? 0;
    const position = lineCounter.linePos(start);
    throw new DocumentSyntaxError(source, position.line, position.col, error instanceof Error ? error.message : String(error));
  }
}

// yaml's messages end with " at line N, column M:" and a code excerpt; the line and column travel
// separately, so keep only the sentence.
function firstSentence(message: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  return firstLine.replace(/ at line \d+, column \d+:?$/, '').trim();
}

function collectFieldLines(node: Node, path: string, lines: Map<string, number>, lineCounter: LineCounter): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const fieldPath = path === '' ? String(pair.key.value) : `${path}.${String(pair.key.value)}`;
      const keyStart = pair.key.range?.[0];
      if (keyStart !== undefined) lines.set(fieldPath, lineCounter.linePos(keyStart).line);
      if (pair.value !== null && typeof pair.value === 'object') collectFieldLines(pair.value as Node, fieldPath, lines, lineCounter);
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) {
      const itemPath = `${path}.${i}`;
      const itemStart = (item as Node | null)?.range?.[0];
      if (itemStart !== undefined) lines.set(itemPath, lineCounter.linePos(itemStart).line);
      if (item !== null && typeof item === 'object') collectFieldLines(item as Node, itemPath, lines, lineCounter);
    }
  }
}
