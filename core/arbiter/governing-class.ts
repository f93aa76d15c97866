// Issue 29, ADR-24: which LockClass governs a key, decided by the arbiter's registry (one place for class
// rules): the class the caller names in the key's namespace, or the namespace's only class. A client then
// needs no class file of its own.
import { LockError } from '../lock-error.js';
import type { LockKey } from '../lock-key.js';
import type { ArbiterClass, ClassLookup } from './policy.js';

/** Class names listed in a refusal (a limit on what one answer carries). */
const MAX_NAMES_SHOWN = 10;

export function governingClass(classes: ClassLookup, key: LockKey, className: string): ArbiterClass {
  if (className !== '') {
    const named = classes.get(key.namespace, className);
    if (named === undefined) throw new LockError('unknown-class', `no LockClass ${key.namespace}/${className}; a key's class must be declared in its namespace (ADR-24)`);
    return named;
  }
  const candidates = classes.inNamespace(key.namespace);
  const only = candidates[0];
  if (only === undefined) throw new LockError('unknown-class', `no LockClass in namespace ${key.namespace}; a key's class must be declared in its namespace (ADR-24)`);
  if (candidates.length > 1) {
    const names = candidates.slice(0, MAX_NAMES_SHOWN).map((c) => c.name).join(', ');
    throw new LockError('invalid-argument', `namespace ${key.namespace} has ${candidates.length} LockClasses (${names}${candidates.length > MAX_NAMES_SHOWN ? ', ...' : ''}); name the one for ${key.text}`);
  }
  return only;
}
