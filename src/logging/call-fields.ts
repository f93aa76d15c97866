// What one arbiter call may put in a log line (ADR-22, issue 28): named, bounded fields picked out of the
// request, never the request itself. A key is logged as a prefix of LOG_KEY_PREFIX_CHARS (escaped, so a
// key cannot forge a line), ids as decimal strings (an int64 in a JSON number is rounded by every reader),
// a refusal's message cut to LOG_MESSAGE_CHARS with every token it quotes censored by value: the error
// names them in LockError.tokens, and the request's own token fields are added, so a message that quotes
// a token the caller sent (a malformed one, a stale expected one) logs `[redacted]` in its place.
import { LOG_KEY_PREFIX_CHARS, LOG_MESSAGE_CHARS } from '../../core/limits.js';
import { showKeyText } from '../../core/key-characters.js';
import { isLockError } from '../../core/lock-error.js';
import { REDACTED } from './token-redaction.js';

/** Longest identity or class name a line carries (an identity is checked to 256 characters, ADR-19). */
const NAME_CHARS = 256;
/**
 * Token text shorter than this is not censored inside messages: a real token is at least 2^48 (15
 * digits, ADR-02), and censoring "1" everywhere would garble every message without hiding a capability.
 */
const MIN_CENSORED_CHARS = 4;

const TOKEN_SIZED = /(?<![0-9])[0-9]{15,19}(?![0-9])/g;

export type CallFields = Record<string, string | number | boolean>;

/** `text` cut to `chars` code units, with a mark when it was cut. */
export function bounded(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}…(${text.length} chars)`;
}

/** The fields of a request a line may carry: key prefix, class, session and request ids, TTL and wait. */
export function requestFields(request: unknown): CallFields {
  if (typeof request === 'string') return { key: keyPrefix(request) }; // inspect(caller, key)
  if (typeof request !== 'object' || request === null) return {};
  const r = request as Record<string, unknown>;
  const fields: CallFields = {};
  if (typeof r['key'] === 'string') fields['key'] = keyPrefix(r['key']);
  if (typeof r['className'] === 'string') fields['class'] = bounded(r['className'], NAME_CHARS);
  if (typeof r['sessionId'] === 'bigint' || typeof r['sessionId'] === 'number') fields['sessionId'] = String(r['sessionId']);
  if (typeof r['requestId'] === 'string') fields['requestId'] = bounded(r['requestId'], NAME_CHARS);
  if (typeof r['ttlSeconds'] === 'number') fields['ttlSeconds'] = r['ttlSeconds'];
  if (typeof r['waitMs'] === 'number') fields['waitMs'] = r['waitMs'];
  return fields;
}

/** The fields of an answer a line may carry: ids as strings, never a token or the revision one is made of. */
export function answerFields(answer: unknown): CallFields {
  if (typeof answer !== 'object' || answer === null) return {};
  const a = answer as Record<string, unknown>;
  const fields: CallFields = {};
  if (typeof a['sessionId'] === 'bigint') fields['sessionId'] = String(a['sessionId']);
  if (typeof a['reentered'] === 'boolean') fields['reentered'] = a['reentered'];
  if (typeof a['requestId'] === 'string') fields['requestId'] = bounded(a['requestId'], NAME_CHARS);
  return fields;
}

export function callerField(caller: unknown): string {
  const identity = (caller as { identity?: unknown } | undefined)?.identity;
  return typeof identity === 'string' ? bounded(identity, NAME_CHARS) : '(none)';
}

/** The refusal's message, bounded, with every token it may quote censored (see the file's comment). */
export function refusalMessage(error: unknown, request: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const secrets = [...(isLockError(error) ? error.tokens : []), ...requestTokens(request)].filter((s) => s.length >= MIN_CENSORED_CHARS);
  let message = raw;
  // Longest first, so a token that contains another is censored whole.
  for (const secret of [...new Set(secrets)].sort((a, b) => b.length - a.length)) message = message.split(secret).join(REDACTED);
  // The last net, by shape: a message may quote a token nobody declared (an unexpected error's). Every
  // token is 15 to 19 digits (ADR-02: at least 2^48); the int64 ids a reader needs travel in their own fields.
  return bounded(message.replace(TOKEN_SIZED, REDACTED), LOG_MESSAGE_CHARS);
}

function requestTokens(request: unknown): string[] {
  if (typeof request !== 'object' || request === null) return [];
  const r = request as Record<string, unknown>;
  // As sent, and as a message quoting it with JSON.stringify shows it (a quote or backslash escaped).
  return ['token', 'expectedToken'].flatMap((field) => (r[field] === undefined ? [] : [String(r[field]), JSON.stringify(String(r[field])).slice(1, -1)]));
}

function keyPrefix(key: string): string {
  return showKeyText(bounded(key, LOG_KEY_PREFIX_CHARS)).slice(1, -1); // escaped, without showKeyText's quotes
}
