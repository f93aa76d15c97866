// Reads a run artifact from unknown JSON (a dropped file, a ?run= URL, the report's embedded data) and
// says exactly what is wrong when it is not one: the field, what was expected, what was found, and what
// to do ("checks[2].ok: expected true or false, found "yes""). House rule: errors name the input, the
// rule and the fix.
import type { z } from 'zod';
import { RUN_ARTIFACT_FORMAT, type RunArtifactView, runArtifactSchema } from './schema.js';

/** At most this many problems are listed in one error; the rest are counted. */
const MAX_LISTED_PROBLEMS = 5;

export class ArtifactFormatError extends Error {
  override readonly name = 'ArtifactFormatError';
  /** One line per problem: `path: expected …, found …`. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], total: number) {
    const more = total > problems.length ? `; and ${total - problems.length} more` : '';
    super(`not a run artifact (${RUN_ARTIFACT_FORMAT}): ${problems.join('; ')}${more}. Give the JSON written by lockstep run --out (or lockstep explore).`);
    this.problems = problems;
  }
}

export function parseRunArtifact(input: unknown): RunArtifactView {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ArtifactFormatError([`the artifact: expected a JSON object, found ${describeValue(input)}`], 1);
  }
  // The format first: anything else is a different file altogether, and listing its every field would bury that.
  const format = (input as { format?: unknown }).format;
  if (format !== RUN_ARTIFACT_FORMAT) {
    throw new ArtifactFormatError([`format: expected "${RUN_ARTIFACT_FORMAT}", found ${describeValue(format)}`], 1);
  }
  const parsed = runArtifactSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => describeIssue(issue, input));
  throw new ArtifactFormatError(problems.slice(0, MAX_LISTED_PROBLEMS), problems.length);
}

/** `checks[2].ok`: the way a person would point at the field in the JSON. */
export function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the artifact';
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = pathText(issue.path);
  const found = valueAt(input, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return `${where}: expected ${expectedType(issue.expected)}, found ${found.present ? describeValue(found.value) : 'nothing (the field is missing)'}`;
    case 'invalid_value':
      return `${where}: expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, found ${describeValue(found.value)}`;
    case 'invalid_format':
      return `${where}: expected ${issue.message.replace(/^Invalid string: must match pattern .*$/, 'text of another form')}, found ${describeValue(found.value)}`;
    case 'invalid_union':
      return `${where}: expected a sentence or a violation object, found ${describeValue(found.value)}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

function expectedType(expected: string): string {
  switch (expected) {
    case 'boolean':
      return 'true or false';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'array':
      return 'a list';
    case 'object':
    case 'record':
      return 'an object';
    default:
      return expected;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let value: unknown = input;
  for (const part of path) {
    if (typeof value !== 'object' || value === null || !(String(part) in value)) return { present: false, value: undefined };
    value = (value as Record<string, unknown>)[String(part)];
  }
  return { present: true, value };
}

/** A short description of a found value: its JSON when short, else its type. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = JSON.stringify(value);
  return text.length <= 40 ? text : `${typeof value} ${text.slice(0, 37)}…`;
}
