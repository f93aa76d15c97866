// Field-by-field reading of a YAML mapping against a table of field rules. Each field is checked on its
// own, so one document reports every wrong field at once rather than stopping at the first, and a
// field nobody declared is a problem: a typo such as `ttlSecond` must never fall back to a default.
import type { z } from 'zod';

/** A problem inside one document, before the document's source, namespace and name are attached. */
export type FieldProblem = { field: string; message: string; fix: string };

export type FieldRule<T> = {
  schema: z.ZodType<T>;
  /** Absent fields are a problem when true; otherwise they take `defaultValue` or stay absent. */
  required: boolean;
  defaultValue?: T;
  /** What a valid value looks like, with the rule it comes from: `a whole number of seconds in 5..300 (ADR-11)`. */
  expected: string;
  fix: string;
};

export type FieldTable = Record<string, FieldRule<unknown>>;

/** The fields of a table that were present and valid (or defaulted); invalid ones are left out. */
export type FieldValues<T extends FieldTable> = { [K in keyof T]?: T[K] extends FieldRule<infer V> ? V : never };

export const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const DNS_LABEL_RULE = 'a DNS label: 1..63 lowercase letters, digits and "-", starting and ending with a letter or digit';

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function rule<T>(schema: z.ZodType<T>, details: Omit<FieldRule<NoInfer<T>>, 'schema'>): FieldRule<T> {
  return { schema, ...details };
}

export type FieldReading<T extends FieldTable> = {
  values: FieldValues<T>;
  /** Fields present with a value, valid or not: a rule must not call a field missing when it was only wrong. */
  given: ReadonlySet<string>;
  problems: FieldProblem[];
};

/**
 * Reads `mapping` (found at dotted `path`, described as `what` in messages) against `table`.
 * Reports missing required fields, invalid values and unknown fields; returns the valid values.
 */
export function readFields<T extends FieldTable>(
  mapping: unknown,
  path: string,
  what: string,
  table: T,
): FieldReading<T> {
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  const problems: FieldProblem[] = [];
  if (!isMapping(mapping)) {
    const fields = Object.keys(table).join(', ');
    const message = mapping === undefined ? `is missing; ${what} must be a mapping` : `is ${describe(mapping)}; ${what} must be a mapping`;
    const target = path === '' ? 'the document' : path;
    problems.push({ field: path === '' ? '(document)' : path, message, fix: `write ${target} as a mapping of the fields ${fields}` });
    return { values: values as FieldValues<T>, given, problems };
  }
  for (const [key, fieldRule] of Object.entries(table)) {
    const field = joinPath(path, key);
    const raw = mapping[key];
    if (raw === undefined || raw === null) {
      if (fieldRule.defaultValue !== undefined) values[key] = fieldRule.defaultValue;
      else if (fieldRule.required) problems.push({ field, message: `is missing; it is required and must be ${fieldRule.expected}`, fix: fieldRule.fix });
      continue;
    }
    given.add(key);
    const parsed = fieldRule.schema.safeParse(raw);
    if (parsed.success) values[key] = parsed.data;
    else problems.push({ field, message: `is ${describe(raw)}; it must be ${fieldRule.expected}`, fix: fieldRule.fix });
  }
  problems.push(...unknownFieldProblems(mapping, path, what, Object.keys(table)));
  return { values: values as FieldValues<T>, given, problems };
}

function unknownFieldProblems(mapping: Record<string, unknown>, path: string, what: string, known: string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(mapping)) {
    if (known.includes(key)) continue;
    const suggestion = closestName(key, known);
    problems.push({
      field: joinPath(path, key),
      message: `is not a field of ${what}${suggestion === undefined ? '' : `; did you mean ${suggestion}?`} (unknown fields are refused so a typo never falls back to a default)`,
      fix: suggestion === undefined ? `remove it; ${what} has only ${known.join(', ')}` : `rename it to ${suggestion}`,
    });
  }
  return problems;
}

export function joinPath(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

/** The known name closest to a misspelt one, when it is close enough to be a likely typo. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  const tolerance = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  return best !== undefined && best.distance <= tolerance ? best.name : undefined;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours
// each cost one, so `teir` is one step from `tier`.
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      rows[i]![j] = best;
    }
  }
  return at(a.length, b.length);
}

/** A short, unambiguous rendering of a bad value for a message: `"ttl"`, `600`, `a list`. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}
