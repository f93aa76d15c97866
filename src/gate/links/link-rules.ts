// The network faults of a real gate run as a table of rules over directed links between named processes
// (issue 15, ADR-23): a partition cuts every link from each of `from` to each of `to` (and back unless
// one-way), a slow link adds a delay to them. The proxies (link-proxy.ts) ask the table, chunk by chunk,
// what to do with bytes travelling from one process to another, so a rule added or healed takes effect at
// once on connections already open. This is the real-process side of the simulator's Network
// (sim/net/network.ts), driven by the same Fault data (scenarios/faults.ts).

/** What happens to bytes travelling one way on one link now. */
export interface LinkMode {
  /** Discarded: a partition (the connection stays open, nothing arrives; TCP itself acks, as a blackhole would). */
  readonly drop: boolean;
  /** Held this long before they are forwarded, in order. */
  readonly delayMs: number;
}

export const PASS: LinkMode = { drop: false, delayMs: 0 };

interface Rule {
  readonly from: ReadonlySet<string>;
  readonly to: ReadonlySet<string>;
  readonly oneWay: boolean;
  readonly kind: 'cut' | 'slow';
  readonly delayMs: number;
}

export class LinkRules {
  private readonly rules = new Map<number, Rule>();
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  /** Cuts from -> to (and to -> from unless oneWay); returns the heal. */
  cut(from: readonly string[], to: readonly string[], oneWay: boolean): () => void {
    return this.add({ from: new Set(from), to: new Set(to), oneWay, kind: 'cut', delayMs: 0 });
  }

  /** Delays from -> to (and back unless oneWay) by delayMs; returns the heal. */
  slow(from: readonly string[], to: readonly string[], delayMs: number, oneWay: boolean): () => void {
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`a slow link's delay must be a non-negative number of ms, not ${delayMs}`);
    return this.add({ from: new Set(from), to: new Set(to), oneWay, kind: 'slow', delayMs });
  }

  /** The mode of bytes from `source` to `destination` now: dropped if any rule cuts it, else the sum of the delays. */
  modeFor(source: string, destination: string): LinkMode {
    let delayMs = 0;
    for (const rule of this.rules.values()) {
      if (!applies(rule, source, destination)) continue;
      if (rule.kind === 'cut') return { drop: true, delayMs: 0 };
      delayMs += rule.delayMs;
    }
    return delayMs === 0 ? PASS : { drop: false, delayMs };
  }

  /** Called after every heal: a proxy resets the connections that lost bytes, so no stream resumes mid-frame. */
  onHeal(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.rules.size;
  }

  private add(rule: Rule): () => void {
    const id = this.nextId++;
    this.rules.set(id, rule);
    return () => {
      if (!this.rules.delete(id)) return; // healed already: a heal is idempotent
      for (const listener of this.listeners) listener();
    };
  }
}

function applies(rule: Rule, source: string, destination: string): boolean {
  if (rule.from.has(source) && rule.to.has(destination)) return true;
  return !rule.oneWay && rule.from.has(destination) && rule.to.has(source);
}
