// The timeline's view model: what the drawing code needs and nothing of the simulator. Built from a run
// artifact by model.ts, pure and unit-tested in node (viz/README.md).
import type { MarkKind } from './dom-contract.js';

/** clients first, then arbiters, etcd members, resources, and the world itself (network-wide events). */
export const LANE_ROLES = ['client', 'arbiter', 'member', 'resource', 'world'] as const;
export type LaneRole = (typeof LANE_ROLES)[number];

export interface Lane {
  /** The process name (data-lane); '' is the world. */
  readonly name: string;
  readonly label: string;
  readonly role: LaneRole;
}

export interface Mark {
  /** Position in TimelineModel.marks (time order): the ←/→ keys step through these. */
  readonly id: number;
  readonly kind: MarkKind;
  /** Lane.name */
  readonly lane: string;
  readonly startMs: number;
  /** Equal to startMs for an instant (a keepalive, an expiry). */
  readonly endMs: number;
  /** Short text for the mark itself: a token for holds, beliefs and writes. */
  readonly label: string;
  /** Shown when the mark is clicked: the record's fields, the grant, the write (JSON data; a trace record's own fields object, not a copy). */
  readonly details: Readonly<Record<string, unknown>>;
  /** The trace record the mark starts at (its index and kind), when it comes from the trace. */
  readonly record?: number;
  readonly traceKind?: string;
  /** Names of the failing checks this mark is part of. */
  readonly violations: readonly string[];
}

/** Shared by every mark in no violation (most of them: one array, not a million). */
export const NO_VIOLATIONS: readonly string[] = Object.freeze([]);

/** A mark while the model builds it: model.ts numbers the marks once they are in time order, then flags the violations' marks. */
export type MarkDraft = { -readonly [K in keyof Mark]: Mark[K] };

export interface ViolationRow {
  /** The checker's sentence. */
  readonly message: string;
  /** The marks that make the violation (Mark.id). */
  readonly markIds: readonly number[];
  readonly atMs?: number;
}

export interface CheckRow {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly violations: readonly ViolationRow[];
}

export interface TimeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

export interface TimelineModel {
  readonly title: string;
  readonly lanes: readonly Lane[];
  /** Sorted by startMs (then lane order); Mark.id is the position here. */
  readonly marks: readonly Mark[];
  /** The whole run: 0 to the simulated end. */
  readonly extent: TimeWindow;
  readonly checks: readonly CheckRow[];
  /** Trace records the capture dropped beyond its bound (0 when everything was kept, or no timeline). */
  readonly droppedRecords: number;
  /** False when the artifact carries no trace records: only history marks (holds, beliefs, writes) are drawn. */
  readonly hasTrace: boolean;
  /** Where to look first: the first violation's marks, padded; undefined when every check passed. */
  readonly focus: TimeWindow | undefined;
}
