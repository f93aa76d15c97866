// A quorum topology as data (ADR-06/08): halls in regions, an RTT matrix between halls, etcd members in
// halls with their disks, where the arbiter and clients sit, and Raft's timers. `lockstep quorum` reads
// one, validates it here (every error names the field and the fix) and prices it: the analytic floor
// below, the simulated distribution from sim/planner.

/** The same shape as the simulator's DistributionSpec (core/ does not import sim/). */
export type LatencySpec =
  | { readonly kind: 'constant'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly kind: 'lognormal'; readonly medianMs: number; readonly p99Ms: number }
  | { readonly kind: 'empirical'; readonly samplesMs: readonly number[] };

export interface Hall {
  readonly name: string;
  readonly region: string;
}

export interface TopologyMember {
  readonly name: string;
  readonly hall: string;
  /** This member's WAL fsync; default the topology's `fsync`. */
  readonly fsync?: LatencySpec;
}

export interface Topology {
  readonly name: string;
  readonly description?: string;
  readonly halls: readonly Hall[];
  /** Round-trip times between halls, ms, indexed like `halls`; the diagonal is the RTT within a hall; null: unreachable. */
  readonly rttMs: ReadonlyArray<ReadonlyArray<number | null>>;
  /** One-way latency p99 over its median on every link. Default 1.5. */
  readonly linkP99OverMedian?: number;
  readonly fsync: LatencySpec;
  /** The arbiter's etcd client talks to the first member (put the one in the arbiter's hall first). */
  readonly members: readonly TopologyMember[];
  readonly arbiter: { readonly hall: string };
  readonly clients: { readonly hall: string; readonly count: number };
  readonly raft?: { readonly tickMs?: number; readonly electionTicks?: number };
}

export const DEFAULT_LINK_P99_OVER_MEDIAN = 1.5;

export class TopologyError extends Error {
  constructor(readonly field: string, message: string, readonly fix: string) {
    super(`${field}: ${message}; ${fix}`);
    this.name = 'TopologyError';
  }
}

/** Checks a parsed document and returns it typed; throws a TopologyError naming the first bad field. */
export function validateTopology(value: unknown): Topology {
  const t = value as Partial<Topology> | null;
  if (t === null || typeof t !== 'object') throw new TopologyError('(document)', 'is not an object', 'write a JSON object with name, halls, rttMs, fsync, members, arbiter, clients');
  if (typeof t.name !== 'string' || t.name === '') throw new TopologyError('name', 'is missing', 'name the topology, e.g. "regional-3"');
  const halls = requireArray(t.halls, 'halls');
  halls.forEach((h, i) => {
    if (typeof h?.name !== 'string' || typeof h?.region !== 'string') throw new TopologyError(`halls[${i}]`, 'needs a name and a region', 'write {"name": "hall-a", "region": "eu-1"}');
  });
  validateMatrix(t.rttMs, halls.length);
  const hallNames = new Set(halls.map((h) => h.name));
  validateSpec(t.fsync, 'fsync');
  const members = requireArray(t.members, 'members');
  if (members.length % 2 === 0) throw new TopologyError('members', `has ${members.length} members, an even count: it tolerates no more failures than ${members.length - 1} and needs a larger majority`, `use ${members.length - 1} or ${members.length + 1} members`);
  const names = new Set<string>();
  members.forEach((m, i) => {
    if (typeof m?.name !== 'string' || names.has(m.name)) throw new TopologyError(`members[${i}].name`, 'is missing or repeated', 'give every member a unique name');
    names.add(m.name);
    if (!hallNames.has(m.hall)) throw new TopologyError(`members[${i}].hall`, `${JSON.stringify(m.hall)} is not one of the halls`, `use one of ${[...hallNames].join(', ')}`);
    if (m.fsync !== undefined) validateSpec(m.fsync, `members[${i}].fsync`);
  });
  if (!hallNames.has(t.arbiter?.hall ?? '')) throw new TopologyError('arbiter.hall', 'is not one of the halls', `use one of ${[...hallNames].join(', ')}`);
  if (!hallNames.has(t.clients?.hall ?? '')) throw new TopologyError('clients.hall', 'is not one of the halls', `use one of ${[...hallNames].join(', ')}`);
  const count = t.clients?.count;
  if (!(typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= 256)) throw new TopologyError('clients.count', `is ${String(count)}`, 'use a whole number from 1 to 256');
  const ratio = t.linkP99OverMedian ?? DEFAULT_LINK_P99_OVER_MEDIAN;
  if (!(ratio >= 1 && Number.isFinite(ratio))) throw new TopologyError('linkP99OverMedian', `is ${ratio}`, 'use a number >= 1 (1 means constant latency)');
  const topology = t as Topology;
  if (!members.some((_, i) => reachableMembers(topology, i) >= majority(members.length))) {
    throw new TopologyError('rttMs', 'leaves no member able to reach a majority', 'give the member halls finite RTTs to each other (null means unreachable)');
  }
  return topology;
}

function requireArray<T>(value: readonly T[] | undefined, field: string): readonly T[] {
  if (!Array.isArray(value) || value.length === 0) throw new TopologyError(field, 'is missing or empty', `give ${field} as a non-empty list`);
  return value;
}

function validateMatrix(matrix: Topology['rttMs'] | undefined, size: number): void {
  if (!Array.isArray(matrix) || matrix.length !== size) throw new TopologyError('rttMs', `must have one row per hall (${size}), has ${Array.isArray(matrix) ? matrix.length : 'none'}`, 'write a square matrix indexed like halls');
  matrix.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== size) throw new TopologyError(`rttMs[${i}]`, `must have ${size} entries (the matrix is not square)`, 'write one entry per hall');
    row.forEach((rtt, j) => {
      if (rtt === null) {
        if (i === j) throw new TopologyError(`rttMs[${i}][${i}]`, 'is null, but a hall always reaches itself', 'give the RTT within the hall, e.g. 0.2');
        return;
      }
      if (!(typeof rtt === 'number' && Number.isFinite(rtt) && rtt >= 0)) throw new TopologyError(`rttMs[${i}][${j}]`, `is ${String(rtt)}, not a non-negative RTT`, 'give milliseconds >= 0, or null for unreachable');
    });
  });
  matrix.forEach((row: ReadonlyArray<number | null>, i) =>
    row.forEach((rtt: number | null, j: number) => {
      if (rtt !== matrix[j]![i]) throw new TopologyError(`rttMs[${i}][${j}]`, `is ${String(rtt)} but rttMs[${j}][${i}] is ${String(matrix[j]![i])}: the matrix must be symmetric`, 'a round trip is the same both ways; make the two entries equal');
    }),
  );
}

function validateSpec(spec: LatencySpec | undefined, field: string): void {
  const s = spec as { kind?: unknown; ms?: unknown; minMs?: unknown; maxMs?: unknown; medianMs?: unknown; p99Ms?: unknown; samplesMs?: unknown } | undefined;
  const ok = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const valid =
    s !== undefined &&
    ((s.kind === 'constant' && ok(s.ms)) ||
      (s.kind === 'uniform' && ok(s.minMs) && ok(s.maxMs) && (s.maxMs as number) >= (s.minMs as number)) ||
      (s.kind === 'lognormal' && ok(s.medianMs) && (s.medianMs as number) > 0 && ok(s.p99Ms) && (s.p99Ms as number) >= (s.medianMs as number)) ||
      (s.kind === 'empirical' && Array.isArray(s.samplesMs) && s.samplesMs.length > 0 && s.samplesMs.every(ok)));
  if (!valid) throw new TopologyError(field, `is not a valid latency distribution: ${JSON.stringify(spec)}`, 'use {"kind":"lognormal","medianMs":2,"p99Ms":10}, constant {ms}, uniform {minMs,maxMs} or empirical {samplesMs}');
}

export function majority(members: number): number {
  return Math.floor(members / 2) + 1;
}

export function hallIndex(topology: Topology, hall: string): number {
  return topology.halls.findIndex((h) => h.name === hall);
}

/** RTT between two halls, ms (Infinity when unreachable). */
export function rttBetween(topology: Topology, hallA: string, hallB: string): number {
  const rtt = topology.rttMs[hallIndex(topology, hallA)]?.[hallIndex(topology, hallB)];
  return rtt === null || rtt === undefined ? Number.POSITIVE_INFINITY : rtt;
}

function reachableMembers(topology: Topology, from: number): number {
  const hall = topology.members[from]!.hall;
  return topology.members.filter((m) => Number.isFinite(rttBetween(topology, hall, m.hall))).length;
}

/** The value of a latency spec at quantile 0.5 or 0.99 (the two an analytic bound uses). */
export function specAt(spec: LatencySpec, q: 0.5 | 0.99): number {
  switch (spec.kind) {
    case 'constant':
      return spec.ms;
    case 'uniform':
      return spec.minMs + q * (spec.maxMs - spec.minMs);
    case 'lognormal':
      return q === 0.5 ? spec.medianMs : spec.p99Ms;
    case 'empirical': {
      const sorted = [...spec.samplesMs].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!;
    }
  }
}
