// What the arbiter needs to know of classes and grants (core/classes, core/authz provide them). Kept
// as narrow interfaces so the arbiter depends on the rule, not on how documents are parsed.

export interface ArbiterClass {
  readonly namespace: string;
  readonly name: string;
  readonly enforcement: 'fenced' | 'advisory';
  readonly ttlSeconds: number;
  readonly fairness: 'memory' | 'durable';
  /** ADR-07: which cluster tier serves the class's keys. */
  readonly tier: 'coord' | 'entity';
  /** ADR-04: `open` lets an efficiency class be granted from an arbiter's memory while no majority answers (fail-open.ts). Absent: closed. */
  readonly onQuorumLoss?: 'open' | 'closed';
}

export interface ClassLookup {
  get(namespace: string, name: string): ArbiterClass | undefined;
  /** Every class of a namespace, ordered by name (issue 29: which class governs a key). */
  inNamespace(namespace: string): readonly ArbiterClass[];
}

/** ADR-19: may this identity lock this key? Decided before any read of the log. */
export interface Authorizer {
  allows(identity: string, key: string): boolean;
  /** ADR-20: may this identity act as an operator on `key` (undefined: on the whole log, for an epoch advance)? */
  operates(identity: string, key: string | undefined): boolean;
}

/** Where a key is served (ADR-07/08/09); absent = everything is local. */
export interface Placement {
  /**
   * undefined = served here; otherwise why not. With a tier, the key's range is checked too (draining);
   * without one (a read that does not know the key's class yet) only the key's region.
   */
  check(key: string, tier?: 'coord' | 'entity'): { readonly kind: 'redirect'; readonly region: string } | { readonly kind: 'draining' } | undefined;
}
