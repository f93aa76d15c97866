// The canonical serialisation of trace fields: the same value always gives the same text, whatever
// the order its object keys were written in, so the trace hash depends on content alone.
// JSON with three extensions, never parsed back, only hashed and shown:
// - object keys sorted by code unit; properties whose value is undefined are left out (as JSON does);
// - a bigint is written as digits followed by `n` (12n), so it never collides with a number or a string;
// - NaN, Infinity and -Infinity are written as such (JSON would write null); -0 is written 0.
// Maps and Sets are written as arrays of their entries in insertion order (itself deterministic).
// A function or symbol is a programmer error: it has no stable text, so it throws, naming the path.

/** Canonical text of a value, for hashing and display. */
export function canonicalText(value: unknown): string {
  const out: string[] = [];
  write(value, out, '$');
  return out.join('');
}

function write(value: unknown, out: string[], path: string): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      out.push(Number.isFinite(value) ? JSON.stringify(value) : String(value));
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
      writeObject(value, out, path);
      return;
    default:
      throw new TypeError(`canonicalText: ${path} is a ${typeof value}, which has no stable text; trace plain data only`);
  }
}

function writeObject(value: object | null, out: string[], path: string): void {
  if (value === null) {
    out.push('null');
    return;
  }
  if (Array.isArray(value)) {
    writeArray(value, out, path);
    return;
  }
  if (value instanceof Map) {
    writeArray([...value.entries()], out, path);
    return;
  }
  if (value instanceof Set) {
    writeArray([...value.values()], out, path);
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out.push('{');
  let first = true;
  for (const key of keys) {
    const field = record[key];
    if (field === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(field, out, `${path}.${key}`);
  }
  out.push('}');
}

function writeArray(values: readonly unknown[], out: string[], path: string): void {
  out.push('[');
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out.push(',');
    write(values[i], out, `${path}[${i}]`);
  }
  out.push(']');
}
