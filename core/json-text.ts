// JSON text with bigints (tokens, revisions, cluster and lease ids) as decimal strings: ADR-02's wire form,
// the one a reader of an artifact, a --json line or an audit export parses back with BigInt(text). The one
// replacer for every layer (issue 34): core, the scenarios' artifacts, the CLI and the web page.

/** A JSON.stringify replacer: a bigint becomes its decimal digits, everything else stays as it is. */
export function bigintAsDecimal(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString(10) : value;
}

/** JSON with bigints as decimal strings, indented by `indent` spaces when given. */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, bigintAsDecimal, indent);
}
