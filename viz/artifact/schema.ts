// The shape of a run artifact ('lockstep.run/1', scenarios/runner.ts) as the browser reads it: plain
// JSON, tokens and revisions as decimal strings (ADR-02's wire form). viz/ may not import scenarios/
// (ARCHITECTURE.md, Layers), so the shape is stated here, once, as a zod schema; the types follow from it.
// Only what the views draw is strict; the rest (parameters, faults, metrics) passes through unchecked.
import { z } from 'zod';

// The views run under a Content-Security-Policy without 'unsafe-eval' (the workbench's and the offline
// report's: issue 18), so zod must not compile parsers with `new Function`, nor even probe whether it may:
// the probe's refusal is reported as a CSP violation. Set before any schema below is built.
z.config({ jitless: true });

export const RUN_ARTIFACT_FORMAT = 'lockstep.run/1';

const decimal = z.string().regex(/^-?\d+$/, 'a decimal integer string');

export const grantSchema = z.object({
  key: z.string(),
  token: decimal,
  holder: z.string(),
  cluster: z.string().optional(),
  revision: decimal,
  grantedAtMs: z.number(),
  endedAtRevision: decimal.optional(),
  endedAtMs: z.number().optional(),
  endReason: z.string().optional(),
});

export const beliefSchema = z.object({
  holder: z.string(),
  key: z.string(),
  token: decimal,
  fromMs: z.number(),
  toMs: z.number().optional(),
});

export const writeSchema = z.object({
  resource: z.string(),
  key: z.string(),
  holder: z.string(),
  token: decimal,
  atMs: z.number(),
  endMs: z.number().optional(),
  accepted: z.boolean(),
});

export const historySchema = z.object({
  grants: z.array(grantSchema),
  beliefs: z.array(beliefSchema).optional(),
  writes: z.array(writeSchema).optional(),
  resources: z.array(z.object({ name: z.string(), fenced: z.boolean() })).optional(),
});

/** A checker's violation (core/checkers Violation); scenario checks and raft-safety list plain sentences. */
export const violationSchema = z.union([
  z.string(),
  z.looseObject({
    kind: z.string().optional(),
    key: z.string().optional(),
    message: z.string().optional(),
    involved: z.array(z.looseObject({ holder: z.string(), token: z.string().optional() })).optional(),
    atMs: z.number().optional(),
    revisions: z.array(z.string()).optional(),
    resource: z.string().optional(),
  }),
]);

export const checkSchema = z.object({
  name: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  violations: z.array(violationSchema),
});

export const traceRecordSchema = z.object({
  index: z.number(),
  timeMs: z.number(),
  process: z.string(),
  kind: z.string(),
  fields: z.record(z.string(), z.unknown()),
});

/** What the capture knew about each process of the world (scenarios/timeline-capture.ts). */
export const processRoleSchema = z.object({
  name: z.string(),
  role: z.enum(['client', 'arbiter', 'member', 'resource']),
  identity: z.string().optional(),
});

export const timelineSchema = z.object({
  records: z.array(traceRecordSchema),
  dropped: z.number(),
  processes: z.array(processRoleSchema).optional(),
});

export const runArtifactSchema = z.looseObject({
  format: z.literal(RUN_ARTIFACT_FORMAT),
  scenario: z.string(),
  variant: z.string(),
  expect: z.enum(['pass', 'violation']),
  seed: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  faults: z.array(z.unknown()),
  appliedFaults: z.array(z.string()),
  history: historySchema,
  checks: z.array(checkSchema),
  ok: z.boolean(),
  asDeclared: z.boolean(),
  metrics: z.record(z.string(), z.number()),
  traceHash: z.string(),
  simulatedMs: z.number(),
  replay: z.string(),
  timeline: timelineSchema.optional(),
});

export type RunArtifactView = z.infer<typeof runArtifactSchema>;
export type GrantView = z.infer<typeof grantSchema>;
export type BeliefView = z.infer<typeof beliefSchema>;
export type WriteView = z.infer<typeof writeSchema>;
export type CheckView = z.infer<typeof checkSchema>;
export type ViolationView = z.infer<typeof violationSchema>;
export type TraceRecordView = z.infer<typeof traceRecordSchema>;
export type ProcessRole = z.infer<typeof processRoleSchema>;
export type TimelineView = z.infer<typeof timelineSchema>;
