// The field tables of the three document kinds (ADR-24), each field with the rule it must meet and the
// fix to offer. Rules that tie fields together (fenced needs a resource, open needs efficiency) live
// in class-rules.ts; here every field is judged on its own.
import * as z from 'zod';
import { isCivilDate } from './civil-date.js';
import { RAN_AT_RULE, isRanAt } from './ran-at.js';
import { IDENTITY_LIMIT_NAMES, MAX_GRANTED_LIMIT } from '../limits.js';
import { API_VERSION, TTL_DEFAULT_SECONDS, TTL_MAX_SECONDS, TTL_MIN_SECONDS } from './model.js';
import { DNS_LABEL, DNS_LABEL_RULE, isMapping, rule } from './fields.js';

export const DOCUMENT_KINDS = ['LockClass', 'PauseTestResult', 'LockGrant'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

const mapping = z.custom<Record<string, unknown>>(isMapping);
const text = z.string().trim().min(1);
const dnsLabel = z.string().regex(DNS_LABEL);
const civilDate = z.string().refine(isCivilDate);
const grantLimit = z.number().int().min(1).max(MAX_GRANTED_LIMIT);
const grantLimits = z.object(Object.fromEntries(IDENTITY_LIMIT_NAMES.map((name) => [name, grantLimit.optional()])) as Record<(typeof IDENTITY_LIMIT_NAMES)[number], z.ZodOptional<typeof grantLimit>>).strict();
const ranAt = z.string().refine(isRanAt);

export const envelopeFields = {
  apiVersion: rule(z.literal(API_VERSION), {
    required: true,
    expected: `${API_VERSION}`,
    // The CRDs' API group (deploy/crds): one name in the cluster and in the files (lockstep/v1 before).
    fix: `set apiVersion: ${API_VERSION}`,
  }),
  kind: rule(z.enum(DOCUMENT_KINDS), {
    required: true,
    expected: `one of ${DOCUMENT_KINDS.join(', ')}`,
    fix: `set kind to ${DOCUMENT_KINDS.join(', ')}`,
  }),
  metadata: rule(mapping, { required: true, expected: 'a mapping with name and namespace', fix: 'add metadata: {name: ..., namespace: ...}' }),
  spec: rule(mapping, { required: true, expected: 'a mapping of the fields of its kind', fix: 'add a spec mapping; see docs/lock-classes.md' }),
};

export const metadataFields = {
  name: rule(dnsLabel, { required: true, expected: DNS_LABEL_RULE, fix: 'name it in lowercase letters, digits and "-", e.g. ledger-writes' }),
  namespace: rule(dnsLabel, {
    required: true,
    expected: `${DNS_LABEL_RULE}; it is the first segment of every key the class guards`,
    fix: 'set the namespace that owns the keys, e.g. payments',
  }),
};

// ADR-01, 04, 07, 11, 14, 17: the LockClass spec.
export const lockClassFields = {
  purpose: rule(z.enum(['correctness', 'efficiency']), {
    required: true,
    expected: 'correctness (two holders at once cause damage) or efficiency (two holders only waste work) (ADR-01)',
    fix: 'set purpose: correctness or purpose: efficiency',
  }),
  enforcement: rule(z.enum(['fenced', 'advisory']), {
    required: true,
    expected: 'fenced (the resource refuses stale tokens, shown by a pause test) or advisory (ADR-01)',
    fix: 'set enforcement: fenced with a passing pause test, or enforcement: advisory with riskOwner and waiverExpires',
  }),
  resource: rule(text, {
    required: false,
    expected: 'the name of the guarded resource, exactly as its pause test names it (ADR-17)',
    fix: 'set resource to the guarded store, e.g. postgresql://ledger-db/ledger.entries',
  }),
  riskOwner: rule(text, {
    required: false,
    expected: 'the person or team who carries the risk of an unfenced class (ADR-01)',
    fix: 'set riskOwner to a named owner, e.g. team-payments',
  }),
  waiverExpires: rule(civilDate, {
    required: false,
    expected: 'a calendar date YYYY-MM-DD, the last day of the advisory waiver (ADR-01)',
    fix: 'set waiverExpires to a date such as 2027-03-31, quoted or not',
  }),
  ttlSeconds: rule(z.number().int().min(TTL_MIN_SECONDS).max(TTL_MAX_SECONDS), {
    required: false,
    defaultValue: TTL_DEFAULT_SECONDS,
    expected: `a whole number of seconds in ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS} (ADR-11)`,
    fix: `choose a TTL in ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS} seconds, or omit ttlSeconds for the ${TTL_DEFAULT_SECONDS} s default`,
  }),
  tier: rule(z.enum(['coord', 'entity']), {
    required: true,
    expected: 'coord (few, long-lived locks such as leader election) or entity (many per-record locks) (ADR-07)',
    fix: 'set tier: coord or tier: entity',
  }),
  onQuorumLoss: rule(z.enum(['closed', 'open']), {
    required: false,
    defaultValue: 'closed',
    expected: 'closed (no grants without a quorum) or open (ADR-04)',
    fix: 'set onQuorumLoss: closed, or omit it (closed is the default)',
  }),
  fairness: rule(z.enum(['memory', 'durable']), {
    required: false,
    defaultValue: 'memory',
    expected: 'memory (best-effort FIFO on the arbiter) or durable (waiter keys in etcd) (ADR-14)',
    fix: 'set fairness: memory or fairness: durable, or omit it (memory is the default)',
  }),
};

// ADR-17: what the pause test kit writes after a run.
export const pauseTestFields = {
  class: rule(dnsLabel, { required: true, expected: `the LockClass name in the same namespace (${DNS_LABEL_RULE})`, fix: 'set class to the name of the LockClass the test ran for' }),
  resource: rule(text, { required: true, expected: 'the resource the test ran against, equal to the class resource (ADR-17)', fix: 'set resource to the tested store, as the class names it' }),
  passed: rule(z.boolean(), { required: true, expected: 'true or false: whether the stale write was refused (ADR-17)', fix: 'set passed: true or passed: false as the kit reported' }),
  ranAt: rule(ranAt, { required: true, expected: RAN_AT_RULE, fix: 'set ranAt to when the kit ran, as its result shows, e.g. 2026-11-01 or 2026-11-01T12:00:00Z' }),
};

// ADR-19: prefixes are checked one by one in grant-rules.ts so each bad one gets its own line.
export const lockGrantFields = {
  identity: rule(z.string().regex(/^\S+$/), {
    required: true,
    expected: 'a workload identity without spaces, normally a SPIFFE ID such as spiffe://example.org/ns/payments/sa/ledger (ADR-19)',
    fix: 'set identity to the SPIFFE ID of the workload',
  }),
  prefixes: rule(z.array(z.unknown()).min(1), {
    required: true,
    expected: 'a non-empty list of key prefixes such as payments/ or payments/ledger/ (ADR-19)',
    fix: 'list at least one prefix, e.g. prefixes: [payments/ledger/]',
  }),
  // ADR-20: operators are identities with an operator grant; only they may request or approve a
  // force-release of keys under its prefixes, or an epoch advance.
  role: rule(z.enum(['workload', 'operator']), {
    required: false,
    expected: 'workload (the default: may lock keys under the prefixes) or operator (may also request and approve force-releases of them, ADR-20)',
    fix: 'set role: operator for a person who may break locks, or leave role out',
  }),
  // Issue 28: the identity's quotas on each arbiter (core/limits.ts), raised or lowered from the platform
  // defaults; with several grants for one identity, the largest value set wins.
  limits: rule(grantLimits, {
    required: false,
    expected: `a mapping of whole numbers 1..${MAX_GRANTED_LIMIT} for any of ${IDENTITY_LIMIT_NAMES.join(', ')} (docs/limits.md)`,
    fix: `write e.g. limits: {sessions: 512, callsPerSecond: 10000}, using only ${IDENTITY_LIMIT_NAMES.join(', ')}`,
  }),
};
