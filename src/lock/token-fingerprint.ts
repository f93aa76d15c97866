// ADR-22: a fencing token is write authority at its resource, so no log line, error message or metric
// carries one. Where a person needs to tell one hold from another in a process's output, they get a
// fingerprint: the first 8 hex digits of HMAC-SHA-256(key, the token's decimal string).
//
// Why keyed, and not a plain hash: a token is epoch * 2^48 + revision (ADR-02), and both parts are
// predictable. Epochs are small (usually 1) and the revision is near the cluster's current one, which
// any reader of the cluster, or of an audit line, can bound. So SHA-256(token) is reversible by
// enumeration: a million candidate revisions per epoch are hashed in well under a second. An HMAC under
// a 256-bit key drawn from the OS's CSPRNG once per process, never printed or stored, cannot be checked
// against a guess without that key, so the fingerprint says nothing about the token. 32 bits tell apart
// the handful of holds one process makes; a collision costs only a confusing log line.
//
// What that costs: fingerprints correlate only what one process writes (a `lockstep lock` run and, through
// LOCKSTEP_TOKEN_FINGERPRINT, its command's own log lines). The same token gets another fingerprint in
// another process. Questions across processes about a key go to inspect and audit (ADR-21, ADR-22).
import { createHmac, randomBytes } from 'node:crypto';
import { formatToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';

const FINGERPRINT_HEX_DIGITS = 8;
const KEY_BYTES = 32;

export type TokenFingerprinter = (token: FencingToken) => string;

/** A fingerprinter under `key`; a fresh random key when none is given (tests pass one to compare). */
export function createTokenFingerprinter(key: Uint8Array = randomBytes(KEY_BYTES)): TokenFingerprinter {
  if (key.length < KEY_BYTES) throw new Error(`a token fingerprint key needs ${KEY_BYTES} bytes, got ${key.length}`);
  const secret = Buffer.from(key); // a copy: the caller's buffer may be reused
  return (token) => createHmac('sha256', secret).update(formatToken(token)).digest('hex').slice(0, FINGERPRINT_HEX_DIGITS);
}

let processFingerprinter: TokenFingerprinter | undefined;

/** The fingerprint of `token` under this process's key (drawn on first use). */
export function tokenFingerprint(token: FencingToken): string {
  processFingerprinter ??= createTokenFingerprinter();
  return processFingerprinter(token);
}
