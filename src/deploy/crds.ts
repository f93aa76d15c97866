// The CustomResourceDefinitions of LockClass, LockGrant and PauseTestResult (ADR-24), generated from the
// same field tables `lockstep class check` reads (core/classes/schemas.ts), through zod's JSON Schema
// output: one rule, one place. A field's rule text becomes its description, its default the schema's
// default. What a CRD schema cannot say (a refine such as "a real calendar date", the rules that tie
// fields together, such as "fenced needs a passing pause test") stays with class check, which the
// validating webhook and CI run (ADR-24); the CRD catches the shape at `kubectl apply`.
//
// Kubernetes needs a group with a dot (`<plural>.<group>`), so the CRDs serve `lockstep.dev/v1`; the
// documents class check reads say `apiVersion: lockstep.dev/v1` (core/classes/model.ts). deploy/README.md
// says how the two meet.
import { stringify } from 'yaml';
import { z } from 'zod';
import type { FieldTable } from '../../core/classes/fields.js';
import { lockClassFields, lockGrantFields, pauseTestFields } from '../../core/classes/schemas.js';

export const CRD_GROUP = 'lockstep.dev';
export const CRD_VERSION = 'v1';

interface CrdKind {
  readonly kind: 'LockClass' | 'LockGrant' | 'PauseTestResult';
  readonly plural: string;
  readonly shortNames: readonly string[];
  readonly fields: FieldTable;
  readonly description: string;
}

export const CRD_KINDS: readonly CrdKind[] = [
  { kind: 'LockClass', plural: 'lockclasses', shortNames: ['lkc'], fields: lockClassFields, description: 'A lock class: purpose, enforcement, TTL, tier and posture of the keys of one namespace (ADR-01/04/11/14/24).' },
  { kind: 'LockGrant', plural: 'lockgrants', shortNames: ['lkg'], fields: lockGrantFields, description: 'Which workload identity may lock which key prefixes (ADR-19).' },
  { kind: 'PauseTestResult', plural: 'pausetestresults', shortNames: ['ptr'], fields: pauseTestFields, description: 'What the pause test kit found for a class and resource (ADR-17).' },
];

type JsonSchema = Record<string, unknown>;

/** One field's schema as a Kubernetes structural schema allows it. */
function fieldSchema(name: string, rule: FieldTable[string]): JsonSchema {
  const { $schema: _dropped, ...schema } = z.toJSONSchema(rule.schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
  const out: JsonSchema = { ...schema, description: rule.expected };
  // A structural schema needs a type for every array item; each prefix is a string, checked one by one
  // in grant-rules.ts so that every bad prefix gets its own line.
  if (out['type'] === 'array' && (out['items'] === undefined || Object.keys(out['items'] as object).length === 0)) out['items'] = { type: 'string' };
  if (name === 'waiverExpires') out['format'] = 'date';
  // A structural schema may not combine properties with additionalProperties (LockGrant limits, issue 28):
  // the API server prunes unknown fields, and `class check` refuses them by name.
  if (out['properties'] !== undefined) delete out['additionalProperties'];
  if (rule.defaultValue !== undefined) out['default'] = rule.defaultValue;
  return out;
}

export function specSchema(fields: FieldTable): JsonSchema {
  const properties = Object.fromEntries(Object.entries(fields).map(([name, rule]) => [name, fieldSchema(name, rule)]));
  const required = Object.entries(fields).filter(([, rule]) => rule.required).map(([name]) => name);
  return { type: 'object', properties, required };
}

export function crdOf(kind: CrdKind): JsonSchema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: 'Namespaced',
      names: { kind: kind.kind, listKind: `${kind.kind}List`, plural: kind.plural, singular: kind.kind.toLowerCase(), shortNames: [...kind.shortNames] },
      versions: [
        {
          name: CRD_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', description: kind.description, required: ['spec'], properties: { spec: specSchema(kind.fields) } } },
        },
      ],
    },
  };
}

/** The file deploy/crds/<plural>.yaml holds. */
export function crdFileText(kind: CrdKind): string {
  return `# Generated from core/classes/schemas.ts by \`npm run deploy:crds\`; do not edit (src/deploy/crds.test.ts checks it is current).\n${stringify(crdOf(kind), { lineWidth: 0 })}`;
}
