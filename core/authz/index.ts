// Authorisation by prefix grants (ADR-19). See docs/lock-classes.md, "Prefix grants".
export { type GrantMatch, PrefixGrants, namespaceGrant, namespaceOperatorGrant } from './prefix-grants.js';
export { withOperators } from './with-operators.js';
export { type PrefixMatch, RadixTree } from './radix-tree.js';
