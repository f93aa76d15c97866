// ADR-19: authorisation is a longest-prefix match of the key against the prefixes granted to the
// caller's identity, evaluated in-process before any etcd read. The answer depends only on the
// identity, the key and the grants, never on whether the key exists, so a denial reveals nothing
// about other namespaces (the caller returns one `denied` error either way).
//
// Prefixes are plain string prefixes of keys (`namespace/path`), as etcd's RBAC treats key prefixes:
// `payments/ledger` covers `payments/ledger/42` and also `payments/ledger-archive`. End a prefix with
// "/" to grant a subtree only. Grant documents must start every prefix with `namespace/`
// (core/classes/grant-rules.ts), so no grant reaches past its namespace.
import type { LockGrant } from '../classes/model.js';
import { DEFAULT_IDENTITY_LIMITS, IDENTITY_LIMIT_NAMES, type IdentityLimits } from '../limits.js';
import { type PrefixMatch, RadixTree } from './radix-tree.js';

/** The grant that allowed a key, for diagnostics: which document, and which of its prefixes. */
export type GrantMatch = { prefix: string; grant: LockGrant };

export class PrefixGrants {
  readonly #byIdentity = new Map<string, RadixTree<LockGrant>>();
  /** ADR-20: the operator grants alone, so a workload grant never makes its identity an operator. */
  readonly #operators = new Map<string, RadixTree<LockGrant>>();
  /** Grants that set `limits`, by identity. */
  readonly #limitGrants = new Map<string, LockGrant[]>();

  /** When two grants of one identity list the same prefix, the first in `grants` is the one reported. */
  constructor(grants: readonly LockGrant[]) {
    for (const grant of grants) {
      let tree = this.#byIdentity.get(grant.identity);
      if (tree === undefined) {
        tree = new RadixTree<LockGrant>();
        this.#byIdentity.set(grant.identity, tree);
      }
      for (const prefix of grant.prefixes) tree.insert(prefix, grant);
      if (grant.limits !== undefined) this.#limitGrants.set(grant.identity, [...(this.#limitGrants.get(grant.identity) ?? []), grant]);
      if (grant.role !== 'operator') continue;
      let operated = this.#operators.get(grant.identity);
      if (operated === undefined) {
        operated = new RadixTree<LockGrant>();
        this.#operators.set(grant.identity, operated);
      }
      for (const prefix of grant.prefixes) operated.insert(prefix, grant);
    }
  }

  /**
   * ADR-20: may `identity` request or approve a force-release of `key`? Without a key (an epoch advance,
   * which ends every hold of the log): does it hold any operator grant at all.
   */
  operates(identity: string, key: string | undefined): boolean {
    const tree = this.#operators.get(identity);
    if (tree === undefined) return false;
    return key === undefined ? tree.entries().length > 0 : tree.longestPrefixOf(key) !== undefined;
  }

  /** Whether `identity` may lock `key` (ADR-19). */
  allows(identity: string, key: string): boolean {
    return this.matchingGrant(identity, key) !== undefined;
  }

  /** The longest granted prefix of `key` for `identity`, with its grant; undefined means denied. */
  matchingGrant(identity: string, key: string): GrantMatch | undefined {
    const match: PrefixMatch<LockGrant> | undefined = this.#byIdentity.get(identity)?.longestPrefixOf(key);
    return match === undefined ? undefined : { prefix: match.prefix, grant: match.value };
  }

  /**
   * Issue 28: the identity's quotas. A limit set by any of its grants replaces the platform default; set
   * by several, the largest wins (two teams granting one workload each raise it, neither lowers the other's).
   */
  limitsOf(identity: string): IdentityLimits {
    const grants = this.#limitGrants.get(identity);
    if (grants === undefined) return DEFAULT_IDENTITY_LIMITS;
    const limits: { -readonly [K in keyof IdentityLimits]: number } = { ...DEFAULT_IDENTITY_LIMITS };
    for (const name of IDENTITY_LIMIT_NAMES) {
      const set = grants.flatMap((grant) => (grant.limits?.[name] === undefined ? [] : [grant.limits[name]]));
      if (set.length > 0) limits[name] = Math.max(...set);
    }
    return limits;
  }

  /** Every prefix granted to `identity`, in lexicographic order (for `inspect` and error hints). */
  prefixesOf(identity: string): string[] {
    return (this.#byIdentity.get(identity)?.entries() ?? []).map((entry) => entry.prefix);
  }

  /** Identities with at least one grant, sorted. */
  identities(): string[] {
    return [...this.#byIdentity.keys()].sort();
  }
}

/**
 * The grant an identity has when no grant documents are given (`--grants` omitted): the whole of one
 * namespace, `namespace/`. Used by tools and the simulator, where the class's namespace is the
 * natural scope; a deployment always declares its grants (ADR-24).
 */
export function namespaceGrant(identity: string, namespace: string): LockGrant {
  return { namespace, name: `${namespace}-implicit`, identity, prefixes: [`${namespace}/`] };
}

/** ADR-20: an operator of the whole of one namespace, for tools and tests. */
export function namespaceOperatorGrant(identity: string, namespace: string): LockGrant {
  return { ...namespaceGrant(identity, namespace), name: `${namespace}-operator-implicit`, role: 'operator' };
}
