// Lock keys: `namespace/path`. Checked before anything else touches them, so bad input gets a typed
// error and writes nothing; held under `/l/` in the log (ARCHITECTURE.md, "Keys").
import { BoundedCache } from './bounded-cache.js';
import { keyCharacterProblem, showKeyText } from './key-characters.js';
import { LockError } from './lock-error.js';
import { MAX_KEY_LENGTH } from './limits.js';

export { MAX_KEY_LENGTH };
const NAMESPACE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const HOLDER_PREFIX = '/l/';
export const WAITER_PREFIX = '/q/';
export const GUARD_PREFIX = '/g/';

export interface LockKey {
  readonly namespace: string;
  readonly path: string;
  /** `namespace/path` */
  readonly text: string;
}

/** Keys accepted lately: every acquire and release parses its key, and a workload reuses its keys (issue 16). */
const acceptedKeys = new BoundedCache<string, LockKey>(4096);

/** The key `text` names; a refusal is a LockError `invalid-argument` (never cached: it throws). */
export function parseLockKey(text: unknown): LockKey {
  return typeof text === 'string' ? acceptedKeys.get(text, readLockKey) : readLockKey(text);
}

function readLockKey(text: unknown): LockKey {
  // Quoted with every code point a key may not contain escaped: the message must not be reordered by the key it refuses.
  // Made only for a refusal: every grant parses its key (issue 16).
  const shown = (): string => showKeyText(String(text).slice(0, 60));
  if (typeof text !== 'string' || text.length === 0) {
    throw new LockError('invalid-argument', 'key is empty; give a key as namespace/path, e.g. payments/invoice-42');
  }
  if (text.length > MAX_KEY_LENGTH) {
    throw new LockError('invalid-argument', `key ${shown()}... is ${text.length} characters, over the limit of ${MAX_KEY_LENGTH}; lock a shorter name (a hash of a long id, say)`);
  }
  // Controls, bidi controls, invisible characters, separators, tags, lone surrogates, non-NFC (key-characters.ts).
  const problem = keyCharacterProblem(text);
  if (problem !== undefined) throw new LockError('invalid-argument', `key ${shown()}: ${problem.message}; ${problem.fix}`);
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) {
    throw new LockError('invalid-argument', `key ${shown()} is not namespace/path; give both parts, e.g. payments/invoice-42`);
  }
  const namespace = text.slice(0, slash);
  const path = text.slice(slash + 1);
  if (!NAMESPACE.test(namespace)) {
    throw new LockError('invalid-argument', `key ${shown()}: namespace ${JSON.stringify(namespace)} must be a DNS label (lowercase letters, digits and '-', at most 63)`);
  }
  if (path.split('/').some((segment) => segment.length === 0)) {
    throw new LockError('invalid-argument', `key ${shown()}: path has an empty segment (a leading, trailing or double '/'); remove it`);
  }
  return { namespace, path, text };
}

/** Where the hold of a key lives in the log. */
export function holderKeyOf(key: LockKey): string {
  return `${HOLDER_PREFIX}${key.text}`;
}

/**
 * Where durable waiters (fairness: durable, ADR-14) for a key live: `/q/<key>//<waiter>`, one child per
 * waiter. The separator is `//` because no key contains it: parseLockKey refuses an empty path segment
 * (so no `//` inside the path, and no `/` at its end) and the namespace, a DNS label, has no `/`. So the
 * key ends where the first `//` after `/q/` begins, and the lines of two different keys are disjoint:
 * with `/` as the separator, `/q/ns/a/` also held `ns/a/b`'s waiters, and a parent key's line waited on
 * its children's (issue 11, L4). A key's line is read and deleted as a prefix range, so this matters.
 */
export function waiterPrefixOf(key: LockKey): string {
  return `${WAITER_PREFIX}${key.text}//`;
}

/**
 * A session's grant guard for a key: `/g/<key>//<session lease id>` (the `//` as in waiterPrefixOf). Every
 * grant txn compares its version with the one the arbiter last knew; settling a grant whose answer never
 * came bumps it, so a copy of that grant txn still on its way (held by a paused member, say) can no
 * longer commit a hold nobody would be handed (grant-attempt.ts, issue 11 L2). Put on the session's lease.
 */
export function guardKeyOf(key: LockKey, sessionId: bigint): string {
  return `${GUARD_PREFIX}${key.text}//${sessionId.toString(10)}`;
}
