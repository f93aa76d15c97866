// Network partitions as plain data, so a fault schedule can list them. A partition cuts the links from
// every process in `from` to every process in `to`, and back too unless it is one-way. It lasts until
// healed, by a call or at `healAtMs`.

export interface PartitionSpec {
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** 'both' (default): nothing crosses either way; 'one-way': from -> to is cut, to -> from still flows. */
  readonly direction?: 'both' | 'one-way';
  /** True time (ms) at which the partition heals by itself. */
  readonly healAtMs?: number;
}

export type PartitionId = number;

/** An active partition with sets for O(1) membership. */
export class ActivePartition {
  private readonly from: ReadonlySet<string>;
  private readonly to: ReadonlySet<string>;
  private readonly bothWays: boolean;

  constructor(readonly id: PartitionId, readonly spec: PartitionSpec) {
    if (spec.from.length === 0 || spec.to.length === 0) throw new RangeError(`partition ${id}: from and to must each name at least one process`);
    this.from = new Set(spec.from);
    this.to = new Set(spec.to);
    this.bothWays = (spec.direction ?? 'both') === 'both';
  }

  /** True if this partition cuts the directed link sender -> receiver. */
  cuts(sender: string, receiver: string): boolean {
    if (this.from.has(sender) && this.to.has(receiver)) return true;
    return this.bothWays && this.to.has(sender) && this.from.has(receiver);
  }
}
