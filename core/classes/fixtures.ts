// Documents for tests (here and in other layers' tests): a valid class of each shape, built as plain
// objects so a test changes one field and shows which rule it breaks.
import { stringify } from 'yaml';
import { type CheckResult, checkDocuments } from './check.js';
import { parseDocuments } from './documents.js';
import { API_VERSION } from './model.js';

export const FIXTURE_TODAY = '2026-11-30';

type Fields = Record<string, unknown>;

export function lockClassDocument(spec: Fields, metadata: Fields = { name: 'ledger-writes', namespace: 'payments' }): Fields {
  return { apiVersion: API_VERSION, kind: 'LockClass', metadata, spec };
}

export const fencedSpec = {
  purpose: 'correctness',
  enforcement: 'fenced',
  resource: 'postgresql://ledger-db/ledger.entries',
  tier: 'entity',
} as const;

export const advisorySpec = {
  purpose: 'correctness',
  enforcement: 'advisory',
  riskOwner: 'team-payments',
  waiverExpires: '2099-12-31',
  ttlSeconds: 60,
  tier: 'entity',
} as const;

export function pauseTestDocument(spec: Fields = {}, metadata: Fields = { name: 'ledger-writes-pause', namespace: 'payments' }): Fields {
  return {
    apiVersion: API_VERSION,
    kind: 'PauseTestResult',
    metadata,
    spec: { class: 'ledger-writes', resource: fencedSpec.resource, passed: true, ranAt: '2026-11-01', ...spec },
  };
}

export function lockGrantDocument(spec: Fields, metadata: Fields = { name: 'ledger-writer', namespace: 'payments' }): Fields {
  return { apiVersion: API_VERSION, kind: 'LockGrant', metadata, spec };
}

/** Renders the documents as one YAML file with `---` between them. */
export function yamlFile(documents: readonly Fields[]): string {
  return documents.map((document) => stringify(document)).join('---\n');
}

/** Renders, parses and checks the documents as one file named `classes.yaml`. */
export function checkFixture(documents: readonly Fields[], today: string = FIXTURE_TODAY): CheckResult {
  return checkDocuments(parseDocuments(yamlFile(documents), 'classes.yaml').documents, { today });
}
