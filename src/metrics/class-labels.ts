// The label values of a request, from the class it names (ADR-22: namespace, class, tier, cluster). Only
// declared classes give their own values: a namespace or class name taken from an unchecked request would
// let any caller add series at will, so every undeclared one shares one value.
import type { ClassLookup } from '../../core/arbiter/policy.js';

export const UNDECLARED = '_undeclared';
export const NO_CLASS = '_none';

export interface ClassLabels {
  readonly namespace: string;
  readonly class: string;
  readonly tier: string;
  readonly cluster: string;
}

export function classLabels(classes: ClassLookup, cluster: string, key: string, className: string): ClassLabels {
  const slash = key.indexOf('/');
  const declared = slash > 0 ? classes.get(key.slice(0, slash), className) : undefined;
  if (declared === undefined) return { namespace: UNDECLARED, class: UNDECLARED, tier: UNDECLARED, cluster };
  return { namespace: declared.namespace, class: declared.name, tier: declared.tier, cluster };
}

/** For a signal about a session that holds nothing. */
export function noClassLabels(cluster: string): ClassLabels {
  return { namespace: NO_CLASS, class: NO_CLASS, tier: NO_CLASS, cluster };
}
