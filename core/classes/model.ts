// The shapes of the documents lockstep reads (ADR-24): LockClass, PauseTestResult and LockGrant, as
// plain data after validation, plus what `checkDocuments` reports when a document is wrong.

import type { IdentityLimits } from '../limits.js';

export const API_VERSION = 'lockstep.dev/v1';

/** ADR-11: the platform's TTL range, its default, and the floor for advisory classes. */
export const TTL_MIN_SECONDS = 5;
export const TTL_MAX_SECONDS = 300;
export const TTL_DEFAULT_SECONDS = 15;
export const ADVISORY_TTL_FLOOR_SECONDS = 30;

/** ADR-17: a pause-test result counts while it is younger than this. */
export const PAUSE_TEST_VALID_DAYS = 365;

export type Purpose = 'correctness' | 'efficiency';
export type Enforcement = 'fenced' | 'advisory';
export type Tier = 'coord' | 'entity';
export type QuorumLossPosture = 'closed' | 'open';
export type Fairness = 'memory' | 'durable';

/**
 * A validated lock class. `resource` is set for every fenced class (and may be set for an advisory
 * one); `riskOwner` and `waiverExpires` are set for every advisory class (ADR-01). Optional fields are
 * absent rather than `undefined` (exactOptionalPropertyTypes).
 */
export type LockClass = {
  namespace: string;
  name: string;
  purpose: Purpose;
  enforcement: Enforcement;
  resource?: string;
  riskOwner?: string;
  /** `YYYY-MM-DD`; the waiver holds through the end of that day. */
  waiverExpires?: string;
  ttlSeconds: number;
  tier: Tier;
  onQuorumLoss: QuorumLossPosture;
  fairness: Fairness;
};

/** The pause test kit's verdict for one class and resource (ADR-17). */
export type PauseTestResult = {
  namespace: string;
  name: string;
  /** The LockClass name, in the same namespace. */
  class: string;
  resource: string;
  passed: boolean;
  /** `YYYY-MM-DD`, or an RFC 3339 timestamp such as `2026-10-01T12:00:00Z` (ran-at.ts). */
  ranAt: string;
};

/** Key prefixes an identity may lock under (ADR-19). Prefixes are plain string prefixes of keys. */
export type LockGrant = {
  namespace: string;
  name: string;
  identity: string;
  prefixes: string[];
  /** ADR-20: absent means workload. An operator may also request and approve force-releases under the prefixes. */
  role?: 'workload' | 'operator';
  /** Issue 28: the identity's quotas, over the platform defaults (core/limits.ts, docs/limits.md). */
  limits?: Partial<IdentityLimits>;
};

/** One YAML document, with where it came from, so a problem can name its file and line. */
export type SourcedDocument = {
  /** The file name (or any label) the document came from. */
  source: string;
  /** Position of the document within its source, from 0. */
  index: number;
  /** 1-based line where the document's content starts, when known. */
  line?: number;
  /** The document as plain data. */
  value: unknown;
  /** 1-based line of each field, keyed by dotted path (`spec.ttlSeconds`, `spec.prefixes.0`). */
  fieldLines?: ReadonlyMap<string, number>;
};

/**
 * One thing wrong with one document, for a person: the field, what is wrong with it and the rule it
 * breaks, and how to fix it. `namespace` and `name` are `?` when the document does not give them.
 */
export type Problem = {
  source: string;
  line?: number;
  namespace: string;
  name: string;
  field: string;
  message: string;
  fix: string;
};
