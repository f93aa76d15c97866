// The canonical serialisation of trace fields: the same value always gives the same text, whatever
// the order its object keys were written in, so the trace hash depends on content alone.
// JSON with three extensions, never parsed back, only hashed and shown:
// - object keys sorted by code unit; properties whose value is undefined are left out (as JSON does);
// - a bigint is written as digits followed by `n` (12n), so it never collides with a number or a string;
// - NaN, Infinity and -Infinity are written as such (JSON would write null); -0 is written 0.
// Maps and Sets are written as arrays of their entries in insertion order (itself deterministic).
// A function or symbol is a programmer error: it has no stable text, so it throws, naming the path.
//
// The text is produced as a sequence of fragments into a sink, so the trace can feed its hasher
// directly without building the string (the hash of the fragments in order is the hash of the text).

/** Receives the canonical text fragment by fragment, in order. */
export interface TextSink {
  push(text: string): void;
  /** Optional: receives a number's text (`String(value)`) without the caller building it. */
  pushNumber?(value: number): void;
}

/** Canonical text of a value, for hashing and display. */
export function canonicalText(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out);
  return out.join('');
}

/** Writes the canonical text of `value` into `sink`, fragment by fragment. */
export function writeCanonical(value: unknown, sink: TextSink): void {
  try {
    write(value, sink);
  } catch (error) {
    if (!(error instanceof NoStableText)) throw error;
    throw new TypeError(`canonicalText: $${error.path.join('')} is a ${error.typeName}, which has no stable text; trace plain data only`);
  }
}

/**
 * The keys a kind's records were last written with: insertion order (to recognise the next record of
 * the kind without building its key list) and sorted order with the quoted key fragments. A trace
 * keeps one per kind; most kinds always carry the same fields in the same order.
 */
export interface KeyPlan {
  readonly order: readonly string[];
  readonly sorted: readonly string[];
  readonly first: readonly string[];
  readonly afterComma: readonly string[];
}

/**
 * writeCanonical for a record's fields object, through `plan` when the object's own keys are the plan's
 * (same text as writeCanonical: the plan only saves building, sorting and quoting the key list). Returns
 * the plan to keep for the next record of the kind: `plan` itself, or a new one for these keys.
 */
export function writeCanonicalFields(fields: object, sink: TextSink, plan: KeyPlan | undefined): KeyPlan | undefined {
  // Only plain objects: for-in would also list a prototype's enumerable keys, which Object.keys does not.
  if (Object.getPrototypeOf(fields) !== Object.prototype) {
    writeCanonical(fields, sink);
    return plan;
  }
  const record = fields as Record<string, unknown>;
  if (plan === undefined || !hasKeysInOrder(record, plan.order)) {
    writeCanonical(fields, sink);
    return planFor(record);
  }
  try {
    sink.push('{');
    let first = true;
    const { sorted } = plan;
    for (let i = 0; i < sorted.length; i++) {
      const key = sorted[i]!;
      const field = record[key];
      if (field === undefined) continue;
      sink.push(first ? plan.first[i]! : plan.afterComma[i]!);
      first = false;
      try {
        write(field, sink);
      } catch (error) {
        if (error instanceof NoStableText) error.path.unshift(`.${key}`);
        throw error;
      }
    }
    sink.push('}');
  } catch (error) {
    if (!(error instanceof NoStableText)) throw error;
    throw new TypeError(`canonicalText: $${error.path.join('')} is a ${error.typeName}, which has no stable text; trace plain data only`);
  }
  return plan;
}

/** True if the object's enumerable keys, in enumeration order, are exactly `order`; allocates nothing. */
function hasKeysInOrder(record: Record<string, unknown>, order: readonly string[]): boolean {
  let i = 0;
  for (const key in record) {
    if (key !== order[i]) return false;
    i++;
  }
  return i === order.length;
}

function planFor(record: Record<string, unknown>): KeyPlan {
  const order = Object.keys(record);
  const sorted = order.slice().sort();
  return { order, sorted, first: sorted.map(quoteKey), afterComma: sorted.map(quoteKeyAfterComma) };
}

/** Thrown from deep inside a value; each enclosing level adds its step to the path on the way out. */
class NoStableText extends Error {
  readonly path: string[] = [];

  constructor(readonly typeName: string) {
    super(typeName);
  }
}

function write(value: unknown, out: TextSink): void {
  switch (typeof value) {
    case 'string':
      out.push(quoteString(value));
      return;
    case 'number':
      // String() and JSON.stringify() agree on every finite number (-0 included: both give "0"), and
      // String() spells NaN and the infinities as this format wants.
      if (out.pushNumber === undefined) out.push(String(value));
      else out.pushNumber(value);
      return;
    case 'bigint':
      out.push(value.toString() + 'n');
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'undefined':
      out.push('null');
      return;
    case 'object':
      writeObject(value, out);
      return;
    default:
      throw new NoStableText(typeof value);
  }
}

function writeObject(value: object | null, out: TextSink): void {
  if (value === null) {
    out.push('null');
    return;
  }
  if (Array.isArray(value)) {
    writeArray(value, out);
    return;
  }
  if (value instanceof Map) {
    writeArray([...value.entries()], out);
    return;
  }
  if (value instanceof Set) {
    writeArray([...value.values()], out);
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  out.push('{');
  let first = true;
  for (const key of keys) {
    const field = record[key];
    if (field === undefined) continue;
    out.push(first ? quoteKey(key) : quoteKeyAfterComma(key));
    first = false;
    try {
      write(field, out);
    } catch (error) {
      if (error instanceof NoStableText) error.path.unshift(`.${key}`);
      throw error;
    }
  }
  out.push('}');
}

function writeArray(values: readonly unknown[], out: TextSink): void {
  out.push('[');
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out.push(',');
    try {
      write(values[i], out);
    } catch (error) {
      if (error instanceof NoStableText) error.path.unshift(`[${i}]`);
      throw error;
    }
  }
  out.push(']');
}

/** Object.keys, sorted by code unit; most trace records are written with their keys in order already. */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) return keys.sort();
  }
  return keys;
}

const quotedStrings = new Map<string, string>();
/** Bound on the cache of quoted short strings (member names, message types and the like repeat). */
const MAX_QUOTED_STRINGS = 8192;
const MAX_CACHED_STRING_LENGTH = 32;

function quoteString(text: string): string {
  if (text.length > MAX_CACHED_STRING_LENGTH) return JSON.stringify(text);
  let quoted = quotedStrings.get(text);
  if (quoted === undefined) {
    quoted = JSON.stringify(text);
    if (quotedStrings.size < MAX_QUOTED_STRINGS) quotedStrings.set(text, quoted);
  }
  return quoted;
}

const quotedKeys = new Map<string, string>();
/** Bound on the cache of quoted keys (field names are few; a runaway would be a bug elsewhere). */
const MAX_QUOTED_KEYS = 4096;

const commaQuotedKeys = new Map<string, string>();

/** `,"key":`, cached, so no separator string is built per field. */
function quoteKeyAfterComma(key: string): string {
  let quoted = commaQuotedKeys.get(key);
  if (quoted === undefined) {
    quoted = ',' + quoteKey(key);
    if (commaQuotedKeys.size < MAX_QUOTED_KEYS) commaQuotedKeys.set(key, quoted);
  }
  return quoted;
}

/** `"key":`, cached: field names repeat in every record. */
function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key) + ':';
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}
