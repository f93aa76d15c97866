// ADR-02: the fencing token is epoch * 2^48 + R, where R is the etcd revision at which the grant txn
// committed. The epoch stays below 2^15 so the packed value is positive in a signed 64-bit column.
// Tokens travel as decimal strings, never as JS numbers (which lose precision above 2^53).
import { LockError } from './lock-error.js';
import type { FencingToken, Revision } from './units.js';

export const REVISION_BITS = 48n;
export const REVISION_LIMIT = 1n << REVISION_BITS; // revisions must be below this
export const EPOCH_LIMIT = 1 << 15; // epochs must be below this
const MAX_TOKEN_DIGITS = 19; // 2^63 - 1 has 19 decimal digits

export function packToken(epoch: number, revision: Revision | bigint): FencingToken {
  if (!Number.isInteger(epoch) || epoch < 0 || epoch >= EPOCH_LIMIT) {
    throw new LockError('invalid-argument', `epoch ${epoch} is outside 0..${EPOCH_LIMIT - 1} (ADR-02: the epoch keeps the token positive in int64)`);
  }
  if (revision < 0n || revision >= REVISION_LIMIT) {
    throw new LockError('invalid-argument', `revision ${revision} is outside 0..2^48-1 (ADR-02); the cluster needs an epoch advance onto a fresh revision space`);
  }
  return ((BigInt(epoch) << REVISION_BITS) | revision) as FencingToken;
}

export function unpackToken(token: FencingToken): { epoch: number; revision: Revision } {
  return { epoch: Number(token >> REVISION_BITS), revision: (token & (REVISION_LIMIT - 1n)) as Revision };
}

/** The wire form (ADR-02): a decimal string. */
export function formatToken(token: FencingToken): string {
  return token.toString(10);
}

/**
 * Parses a token from the wire. Strict: digits only, no sign, no leading zeros, no whitespace, and an
 * epoch in range, so a mangled token is refused before it reaches a read.
 */
export function parseToken(text: string): FencingToken {
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)$/.test(text) || text.length > MAX_TOKEN_DIGITS) {
    const shown = JSON.stringify(String(text).slice(0, 40));
    throw new LockError('invalid-argument', `token ${shown} is not a decimal integer below 2^63; pass the token exactly as the grant returned it`, { tokens: [String(text).slice(0, 40)] });
  }
  const value = BigInt(text);
  if (value >> REVISION_BITS >= BigInt(EPOCH_LIMIT)) {
    throw new LockError('invalid-argument', `token ${text} has an epoch of 2^15 or more, which no grant mints (ADR-02)`, { tokens: [text] });
  }
  return value as FencingToken;
}
