// Finds fencing tokens in text a command printed (ADR-22, issue 18 item 3): what a test asserts is
// absent from every log line and error message. Two kinds of finding:
// - any decimal integer in a token's range, [2^48, 2^63): epoch >= 1 puts every real token there, so
//   this catches tokens the test never saw (the demo's). Session (lease) IDs are int64s too and are not
//   tokens: a number right after "session" or "lease", or in a JSON field named sessionId or leaseId
//   (a structured log line), is not counted;
// - a token the test knows, in decimal or hex, or taken apart as "revision R" (epoch 1's R alone, with
//   the epoch, is the token).
import { REVISION_BITS, unpackToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';

const TOKEN_MIN = 1n << REVISION_BITS;
const TOKEN_LIMIT = 1n << 63n;

export function tokenLeaks(text: string, known: readonly bigint[] = []): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?<![0-9A-Za-z])(?<!(?:session|lease)\s)(?<!"(?:sessionId|leaseId)":"?)\d{15,19}(?![0-9A-Za-z])/gi)) {
    const value = BigInt(match[0]);
    if (value >= TOKEN_MIN && value < TOKEN_LIMIT) found.push(`a token-sized number ${match[0]}`);
  }
  for (const token of known) {
    const hex = token.toString(16);
    if (new RegExp(`(?<![0-9a-f])(0x)?${hex}(?![0-9a-f])`, 'i').test(text)) found.push(`token ${token} in hex`);
    const { revision } = unpackToken(token as FencingToken);
    if (new RegExp(`revision\\s*[:=]?\\s*${revision}(?!\\d)`, 'i').test(text)) found.push(`token ${token} taken apart (revision ${revision})`);
    if (text.includes(token.toString(10)) && !found.some((f) => f.includes(token.toString(10)))) found.push(`token ${token}`);
  }
  return found;
}
