// The classes an arbiter serves, looked up by (namespace, name): a key's namespace is its first segment
// and the request names the class (ARCHITECTURE.md, Classes). Built from checkDocuments' valid classes.
import { LockError } from '../lock-error.js';
import type { LockClass } from './model.js';

export class ClassRegistry {
  readonly #byKey = new Map<string, LockClass>();
  readonly #ordered: LockClass[];

  constructor(classes: readonly LockClass[]) {
    for (const lockClass of classes) {
      const key = registryKey(lockClass.namespace, lockClass.name);
      // checkDocuments never returns two classes of one name, so a duplicate here is a programming error.
      if (this.#byKey.has(key)) {
        throw new LockError('invalid-argument', `class ${key} is given twice; build the registry from checkDocuments' classes, which are unique`);
      }
      this.#byKey.set(key, Object.freeze({ ...lockClass }));
    }
    // Ordered by namespace, then name, so listings and anything derived from them are deterministic.
    this.#ordered = [...this.#byKey.values()].sort((a, b) => compare(a.namespace, b.namespace) || compare(a.name, b.name));
  }

  get(namespace: string, name: string): LockClass | undefined {
    return this.#byKey.get(registryKey(namespace, name));
  }

  /** The classes of one namespace, ordered by name. */
  inNamespace(namespace: string): LockClass[] {
    return this.#ordered.filter((lockClass) => lockClass.namespace === namespace);
  }

  /** Every class, ordered by namespace and then name. */
  list(): LockClass[] {
    return [...this.#ordered];
  }

  get size(): number {
    return this.#ordered.length;
  }
}

// Namespaces are DNS labels and cannot contain "/", so the joined key is unambiguous.
function registryKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
