// Reading the `value` objects of history lines, with messages that say what to write instead.
import { isLockError } from '../lock-error.js';
import { parseToken } from '../token.js';
import { show } from './history.js';

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const good = <T>(value: T): Read<T> => ({ ok: true, value });
const bad = <T>(message: string): Read<T> => ({ ok: false, message });

/** A fencing token (ADR-02) in `value.token`: a decimal string, never a JSON number (which loses digits above 2^53). */
export function readToken(value: unknown, where: string): Read<bigint> {
  const token = field(value, 'token');
  if (token === undefined) return bad(`${where} must be an object with the token, e.g. {"token": "281474976710677"}; it is ${show(value)}`);
  if (typeof token === 'number') return bad(`${where}: give the token as a decimal string, {"token": "${token}"}: JSON numbers lose digits above 2^53 (ADR-02)`);
  if (typeof token !== 'string') return bad(`${where}: "token" is ${show(token)}; give it as a decimal string`);
  try {
    return good(parseToken(token));
  } catch (error) {
    if (!isLockError(error)) throw error;
    return bad(`${where}: ${error.message.replace(/^invalid-argument: /, '')}`);
  }
}

/** A token that may be absent: undefined when `value` has no `token` field. */
export function readOptionalToken(value: unknown, where: string): Read<bigint | undefined> {
  return field(value, 'token') === undefined ? good(undefined) : readToken(value, where);
}

/** A boolean flag of `value`, `fallback` when `value` is null or lacks it. */
export function readFlag(value: unknown, name: string, fallback: boolean, where: string): Read<boolean> {
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) return bad(`${where} must be an object or null; it is ${show(value)}`);
  const flag = field(value, name);
  if (flag === undefined) return good(fallback);
  if (typeof flag !== 'boolean') return bad(`${where}: "${name}" is ${show(flag)}; give true or false`);
  return good(flag);
}

/** `value[name]`, or undefined when `value` is not an object or has no such field. */
export function field(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.prototype.hasOwnProperty.call(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}
