// One lane per process, ordered the way a reader scans a lock incident: the clients (who held, who
// believed), the arbiters, the etcd members (leaders, elections), the guarded resources (writes and
// fence rejections), and last the world (network-wide partitions, fault and scenario notes).
import type { RunArtifactView } from '../artifact/schema.js';
import { LANE_ROLES, type Lane, type LaneRole } from './types.js';

/** The world's lane: trace records with process '' (the kernel, network-wide faults). */
export const WORLD_LANE = '';

export interface LaneIndex {
  readonly lanes: readonly Lane[];
  /** The lane of a holder identity ('spiffe://sim/alice' → 'alice'). */
  laneOfHolder(identity: string): string;
  /** Position of a lane in `lanes` (for sorting marks). */
  order(lane: string): number;
}

/** Member kinds: a process that records these is an etcd member. */
const MEMBER_KIND = /^(raft|etcd)\./;

export function buildLanes(artifact: RunArtifactView): LaneIndex {
  const roles = new Map<string, LaneRole>();
  const identities = new Map<string, string>();
  for (const p of artifact.timeline?.processes ?? []) {
    roles.set(p.name, p.role);
    if (p.identity !== undefined) identities.set(p.identity, p.name);
  }
  const laneOfHolder = (identity: string): string => identities.get(identity) ?? shortName(identity);
  const note = (name: string, role: LaneRole): void => {
    if (!roles.has(name)) roles.set(name, role);
  };
  for (const r of artifact.history.resources ?? []) note(r.name, 'resource');
  for (const w of artifact.history.writes ?? []) note(w.resource, 'resource');
  for (const g of artifact.history.grants) note(laneOfHolder(g.holder), 'client');
  for (const b of artifact.history.beliefs ?? []) note(laneOfHolder(b.holder), 'client');
  for (const record of artifact.timeline?.records ?? []) note(record.process, roleFromRecord(record.process, record.kind));
  note(WORLD_LANE, 'world');
  const lanes = [...roles].map(([name, role]): Lane => ({ name, role, label: name === WORLD_LANE ? 'world' : name })).sort(compareLanes);
  const positions = new Map(lanes.map((lane, i) => [lane.name, i]));
  return { lanes, laneOfHolder, order: (lane) => positions.get(lane) ?? lanes.length };
}

function roleFromRecord(process: string, kind: string): LaneRole {
  if (process === WORLD_LANE) return 'world';
  if (MEMBER_KIND.test(kind) || kind.startsWith('disk.')) return 'member';
  if (/^arbiter\b/.test(process)) return 'arbiter';
  if (kind === 'resource.write') return 'resource';
  return 'client';
}

/** The last path segment of an identity: SPIFFE ids end with the workload's name. */
export function shortName(identity: string): string {
  const segments = identity.split('/').filter((s) => s.length > 0);
  return segments.at(-1) ?? identity;
}

export function compareLanes(a: Lane, b: Lane): number {
  return LANE_ROLES.indexOf(a.role) - LANE_ROLES.indexOf(b.role) || naturalCompare(a.name, b.name);
}

/** 'etcd-2' before 'etcd-10'. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

