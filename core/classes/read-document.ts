// Reads one document's envelope (apiVersion, kind, metadata) and its spec against the field table of
// its kind. What comes out is a draft: the fields that were valid, plus the problems found so far.
import { type FieldProblem, type FieldValues, isMapping, readFields } from './fields.js';
import { type DocumentKind, envelopeFields, lockClassFields, lockGrantFields, metadataFields, pauseTestFields } from './schemas.js';
import type { SourcedDocument } from './model.js';

/** Shown for a namespace or name the document does not give (or gives wrongly). */
export const UNNAMED = '?';

type Common = {
  document: SourcedDocument;
  namespace: string;
  name: string;
  /** True when metadata.namespace and metadata.name are both valid. */
  named: boolean;
  problems: FieldProblem[];
};

/** `given` holds the spec fields present in the document, whether or not their values were valid. */
export type LockClassDraft = Common & { kind: 'LockClass'; spec: FieldValues<typeof lockClassFields>; given: ReadonlySet<string> };
export type PauseTestDraft = Common & { kind: 'PauseTestResult'; spec: FieldValues<typeof pauseTestFields> };
export type LockGrantDraft = Common & { kind: 'LockGrant'; spec: FieldValues<typeof lockGrantFields> };
export type UnknownDraft = Common & { kind: undefined };
export type DocumentDraft = LockClassDraft | PauseTestDraft | LockGrantDraft | UnknownDraft;

export function readDocument(document: SourcedDocument): DocumentDraft {
  const envelope = readFields(document.value, '', 'a lockstep document', envelopeFields);
  const metadata = isMapping(document.value) && isMapping(document.value['metadata'])
    ? readFields(document.value['metadata'], 'metadata', 'metadata', metadataFields)
    : { values: {}, given: new Set<string>(), problems: [] };
  const namespace = metadata.values.namespace;
  const name = metadata.values.name;
  const common: Common = {
    document,
    namespace: namespace ?? rawText(document.value, 'namespace') ?? UNNAMED,
    name: name ?? rawText(document.value, 'name') ?? UNNAMED,
    named: namespace !== undefined && name !== undefined,
    problems: [...envelope.problems, ...metadata.problems],
  };
  const kind: DocumentKind | undefined = envelope.values.kind;
  const spec = envelope.values.spec;
  if (kind === undefined || spec === undefined) return { ...common, kind: undefined };
  switch (kind) {
    case 'LockClass': {
      const read = readFields(spec, 'spec', 'a LockClass spec', lockClassFields);
      return { ...common, kind, spec: read.values, given: read.given, problems: [...common.problems, ...read.problems] };
    }
    case 'PauseTestResult': {
      const read = readFields(spec, 'spec', 'a PauseTestResult spec', pauseTestFields);
      return { ...common, kind, spec: read.values, problems: [...common.problems, ...read.problems] };
    }
    case 'LockGrant': {
      const read = readFields(spec, 'spec', 'a LockGrant spec', lockGrantFields);
      return { ...common, kind, spec: read.values, problems: [...common.problems, ...read.problems] };
    }
  }
}

// A name that breaks the naming rule is still the best label for its problems.
function rawText(value: unknown, field: 'namespace' | 'name'): string | undefined {
  if (!isMapping(value) || !isMapping(value['metadata'])) return undefined;
  const raw = value['metadata'][field];
  return typeof raw === 'string' && raw.trim() !== '' ? raw : undefined;
}
