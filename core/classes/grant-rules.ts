// ADR-19, ADR-24: the rules for LockGrant documents. A prefix is a plain string prefix of keys
// (`namespace/path`), as etcd's own RBAC treats key prefixes, so every prefix must begin with its whole
// namespace segment and the "/": otherwise `pay` would cover `payments/` and `payroll/` alike.
import { keyCharacterProblem, showKeyText } from '../key-characters.js';
import { DNS_LABEL, type FieldProblem, describe } from './fields.js';
import type { LockGrant } from './model.js';
import type { LockGrantDraft } from './read-document.js';

const KEY_PREFIX = /^([^/\s]*)\/\S*$/;

/** The namespace a prefix is confined to, or undefined when the prefix is not of the form `namespace/...`. */
export function prefixNamespace(prefix: string): string | undefined {
  const match = KEY_PREFIX.exec(prefix);
  const namespace = match?.[1];
  return namespace !== undefined && DNS_LABEL.test(namespace) ? namespace : undefined;
}

export function grantRuleProblems(draft: LockGrantDraft): FieldProblem[] {
  const prefixes = draft.spec.prefixes;
  if (prefixes === undefined) return [];
  return prefixes.flatMap((prefix, index) => prefixProblems(prefix, `spec.prefixes.${index}`, draft));
}

function prefixProblems(prefix: unknown, field: string, draft: LockGrantDraft): FieldProblem[] {
  // A prefix is the start of a key: the same code points are refused in both (key-characters.ts, issue 18),
  // checked first so no message below quotes a bidi control raw.
  const character = typeof prefix === 'string' ? keyCharacterProblem(prefix) : undefined;
  if (character !== undefined) {
    return [{ field, message: `is ${showKeyText(String(prefix))}: ${character.message}, and no lock key may contain it`, fix: `${character.fix} from the prefix` }];
  }
  const namespace = typeof prefix === 'string' ? prefixNamespace(prefix) : undefined;
  if (typeof prefix !== 'string' || namespace === undefined) {
    return [{
      field,
      message: `is ${describe(prefix)}; a prefix must be a namespace, "/", and optionally a path without spaces, such as payments/ or payments/ledger/ (ADR-19)`,
      fix: `write it as ${draft.namespace === '?' ? 'namespace' : draft.namespace}/ to grant the whole namespace, or add a path after the "/"`,
    }];
  }
  // ADR-24: grants are reviewed by the namespace's owners, so a grant may not reach into another namespace.
  if (draft.named && namespace !== draft.namespace) {
    return [{
      field,
      message: `is in namespace ${namespace}, but this grant lives in namespace ${draft.namespace}; a namespace's owners review only its own grants (ADR-24)`,
      fix: `move this prefix to a LockGrant in namespace ${namespace}, reviewed by its owners`,
    }];
  }
  return [];
}

export function lockGrantFromDraft(draft: LockGrantDraft): LockGrant | undefined {
  const { identity, prefixes, role, limits } = draft.spec;
  if (identity === undefined || prefixes === undefined) return undefined;
  const given = limits === undefined ? undefined : Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
  return {
    namespace: draft.namespace,
    name: draft.name,
    identity,
    prefixes: prefixes.filter((p): p is string => typeof p === 'string'),
    ...(role === 'operator' ? { role } : {}),
    ...(given === undefined ? {} : { limits: given }),
  };
}
