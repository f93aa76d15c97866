// ADR-22: tokens never in telemetry. A token is a capability: whoever can read a log line holding one can
// present it at a guarded resource. So every field that carries a token, or the revision a token is made
// from (ADR-02: token = epoch · 2^48 + revision, so a grant's revision beside its epoch is the token), is
// censored by the logger itself, at every depth a log call of this code base uses (the top level, and one
// or two objects down: `{ grant: { token } }`, `{ response: { holder: { token } } }`). Defence in depth: the
// OTel Collector's redaction processor does the same downstream (ADR-22).

/** Field names whose values are tokens or the parts of one. */
export const TOKEN_FIELDS = ['token', 'currentToken', 'expectedToken', 'fencingToken', 'revision'] as const;

export const REDACTED = '[redacted]';

/** pino redaction paths for every token field at depth 0, 1 and 2. */
export function tokenRedactionPaths(fields: readonly string[] = TOKEN_FIELDS): string[] {
  return fields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);
}
