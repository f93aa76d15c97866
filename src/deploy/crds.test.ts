// The CRDs in deploy/crds are generated from class check's field tables and are current, and their
// schemas judge values as class check does: each field's CRD schema, run through a JSON Schema validator
// (ajv), accepts exactly the sample values the field's zod rule accepts. Where a CRD schema cannot say a
// rule, the test names it: ranAt's "a date or a UTC time" refine and a whitespace-only text stay with
// class check (the webhook and CI run it, ADR-24).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isCivilDate } from '../../core/classes/index.js';
import { CRD_GROUP, CRD_KINDS, crdFileText, crdOf } from './crds.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');

const SAMPLES: readonly unknown[] = [
  4, 5, 15, 300, 301, 10.5, -1, '', 'x', 'correctness', 'efficiency', 'fenced', 'advisory', 'coord', 'entity', 'closed', 'open', 'memory', 'durable',
  '2027-03-31', '2027-02-30', 'team-payments', true, false, [], ['payments/'], [3], 'spiffe://example.org/ns/p/sa/a', 'a b', 'ledger-writes', 'Bad_Name', null, {},
];
/** Rules a CRD schema cannot state (refines); class check keeps them. */
const CLASS_CHECK_ONLY = new Set(['PauseTestResult.ranAt']);
/**
 * What class check accepts, field by field: the field's rule, and for prefixes also grant-rules.ts's
 * first per-prefix rule (each is a string), which the CRD states as its items' type.
 */
function classCheckAccepts(kind: string, name: string, schema: { safeParse(value: unknown): { success: boolean } }, sample: unknown): boolean {
  const accepted = schema.safeParse(sample).success;
  if (kind === 'LockGrant' && name === 'prefixes') return accepted && Array.isArray(sample) && sample.every((prefix) => typeof prefix === 'string');
  return accepted;
}

function validator() {
  const ajv = new Ajv({ strict: false });
  ajv.addFormat('date', { type: 'string', validate: (value: string) => isCivilDate(value) }); // the same rule as class check
  return ajv;
}

describe('deploy/crds', () => {
  for (const kind of CRD_KINDS) {
    it(`${kind.plural}.yaml is generated from the current field tables`, () => {
      expect(readFileSync(join(DEPLOY, 'crds', `${kind.plural}.yaml`), 'utf8')).toBe(crdFileText(kind));
    });

    it(`${kind.kind}: a CRD for ${CRD_GROUP}, every spec field with a type and a description`, () => {
      const crd = parse(crdFileText(kind)) as ReturnType<typeof crdOf> & { spec: { group: string; names: { kind: string }; versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, { type?: string; description?: string }>; required: string[] } } } } }> } };
      expect(crd['apiVersion']).toBe('apiextensions.k8s.io/v1');
      expect(crd.spec.group).toBe(CRD_GROUP);
      expect(crd.spec.names.kind).toBe(kind.kind);
      const spec = crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec;
      expect(Object.keys(spec?.properties ?? {}).sort()).toEqual(Object.keys(kind.fields).sort());
      for (const [name, property] of Object.entries(spec?.properties ?? {})) {
        expect(property.type, name).toMatch(/^(string|integer|number|boolean|array|object)$/);
        expect(property.description, name).toBe(kind.fields[name]?.expected);
      }
      expect(spec?.required.sort()).toEqual(Object.entries(kind.fields).filter(([, r]) => r.required).map(([n]) => n).sort());
    });

    it(`${kind.kind}: each field's CRD schema accepts exactly what class check's rule accepts`, () => {
      const ajv = validator();
      const spec = (crdOf(kind) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, object> } } } } }> } }).spec.versions[0]?.schema.openAPIV3Schema.properties.spec;
      let compared = 0;
      for (const [name, rule] of Object.entries(kind.fields)) {
        if (CLASS_CHECK_ONLY.has(`${kind.kind}.${name}`)) continue;
        const check = ajv.compile(spec?.properties[name] ?? {});
        for (const sample of SAMPLES) {
          expect(check(sample), `${kind.kind}.${name} = ${JSON.stringify(sample)}`).toBe(classCheckAccepts(kind.kind, name, rule.schema, sample));
          compared += 1;
        }
      }
      expect(compared).toBeGreaterThan(SAMPLES.length);
    });
  }

  it('the control: a CRD schema that lost a bound is caught by the comparison', () => {
    const ajv = validator();
    const ttl = CRD_KINDS[0]?.fields['ttlSeconds'];
    const loosened = ajv.compile({ type: 'integer', minimum: 1 });
    expect(SAMPLES.some((sample) => loosened(sample) !== ttl?.schema.safeParse(sample).success)).toBe(true);
  });
});
