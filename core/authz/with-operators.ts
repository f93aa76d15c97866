// ADR-20 in the simulator: the two operators a scenario or a fault schedule stands in for hold an
// operator grant on the whole log, beside whatever grants the scenario declares for its workloads.
import type { Authorizer } from '../arbiter/policy.js';

export function withOperators(inner: Authorizer, operators: readonly string[]): Authorizer {
  const named = new Set(operators);
  return {
    allows: (identity, key) => inner.allows(identity, key),
    operates: (identity, key) => named.has(identity) || inner.operates(identity, key),
  };
}
