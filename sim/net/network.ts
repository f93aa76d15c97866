// The simulated network (ARCHITECTURE.md, "Network"): messages between processes over directed links,
// each with a latency distribution, drop and duplicate probabilities, extra delay and optional
// ordering, set per link, per region pair or by default; and partitions that heal.
//
// Each send draws exactly four numbers from its link's own stream 'net/link/<from>-><to>': drop,
// duplicate, latency of the first copy, latency of a second copy. Draws are made whether or not they
// are used, so changing a probability or a partition never shifts later latencies on that link, and
// no other link's draws move at all.
//
// What a message meets on its way:
// - at send: a partition between the two (dropped), the drop coin, the duplicate coin;
// - at arrival: a partition that began in flight (dropped: the wire was cut), a crashed receiver, or a
//   receiver restarted since the send or down at the send (dropped: connections to it were reset or
//   refused), a receiver with no listener (dropped); a paused receiver holds it until resume. A sender
//   that listens with `onUnreachable` is told of a reset or a refusal as a dead host's kernel tells it,
//   and of the resets of its connections when their receiver crashes (kernel-answers.ts, issue 32).
// With `ordered`, a copy is never delivered before an earlier message on its link (arrival time is
// clamped to the link's last), like one TCP connection; without it, messages may overtake.
import type { Kernel } from '../kernel/kernel.js';
import type { RandomStream } from '../kernel/rng.js';
import type { SimProcess } from '../process/process.js';
import { KernelAnswers, type UnreachableHandler } from './kernel-answers.js';
import { resolveLink, type LinkSpec, type ResolvedLink } from './link-spec.js';
import { ActivePartition, type PartitionId, type PartitionSpec } from './partition.js';

export interface NetworkOptions {
  /** Prefix of RNG stream names. Default 'net'. */
  readonly name?: string;
  readonly defaults?: LinkSpec;
  /** Put each message's payload (canonicalised) into its trace records. Default false: id and type only. */
  readonly tracePayloads?: boolean;
  /** Bound on message copies in flight at once; exceeding it is an error naming it. Default 1,000,000. */
  readonly maxInFlight?: number;
}

export interface Delivery<M> {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  /** True time of the send. */
  readonly sentAtMs: number;
  readonly payload: M;
  /** True for the second copy of a duplicated message. */
  readonly duplicate: boolean;
}

/** Handles a delivery inside the receiving process; a returned promise is adopted by the kernel. */
export type MessageHandler<M> = (delivery: Delivery<M>) => unknown;

export type DropReason = 'partition' | 'random' | 'sender-crashed' | 'crashed' | 'restarted' | 'no-listener';

interface LinkState {
  readonly stream: RandomStream;
  resolved: ResolvedLink | undefined;
  lastArrivalMs: number;
}

interface Listener<M> {
  readonly handler: MessageHandler<M>;
  readonly incarnation: number;
  readonly onUnreachable: UnreachableHandler | undefined;
}

export const DEFAULT_MAX_IN_FLIGHT = 1_000_000;

export class Network<M = unknown> {
  private readonly name: string;
  private defaults: LinkSpec;
  private readonly tracePayloads: boolean;
  private readonly maxInFlight: number;
  private readonly linkOverrides = new Map<string, LinkSpec>();
  private readonly regionPairs = new Map<string, LinkSpec>();
  private readonly links = new Map<string, Map<string, LinkState>>();
  private readonly listeners = new Map<string, Listener<M>>();
  private readonly partitions = new Map<PartitionId, ActivePartition>();
  private nextMessageId = 0;
  private nextPartitionId = 0;
  private inFlightCount = 0;
  private readonly answers: KernelAnswers;

  constructor(private readonly kernel: Kernel, options: NetworkOptions = {}) {
    this.name = options.name ?? 'net';
    this.defaults = options.defaults ?? {};
    this.tracePayloads = options.tracePayloads ?? false;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    resolveLink([this.defaults], `${this.name} defaults`);
    this.answers = new KernelAnswers(kernel, {
      latencyMs: (from, to) => {
        const link = this.link(from, to);
        const resolved = link.resolved ?? (link.resolved = this.resolve(from, to));
        return resolved.latency(0.5) + resolved.extraDelayMs;
      },
      isCut: (from, to) => this.isCut(from, to),
      handlerOf: (process) => {
        const listener = this.listeners.get(process.name);
        return listener?.incarnation === process.incarnation ? listener.onUnreachable : undefined;
      },
    });
  }

  /** Message copies sent and not yet arrived. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /**
   * Sets the handler of `process`'s current incarnation; a restarted process must listen again. With
   * `onUnreachable`, it is told when a peer it sends to is gone (its connection reset, a connect refused).
   */
  listen(process: SimProcess, handler: MessageHandler<M>, onUnreachable?: UnreachableHandler): void {
    const existing = this.listeners.get(process.name);
    if (existing !== undefined && existing.incarnation === process.incarnation) {
      throw new Error(`${this.name}: process ${process.name} already listens in incarnation ${process.incarnation}; demultiplex in one handler`);
    }
    this.listeners.set(process.name, { handler, incarnation: process.incarnation, onUnreachable });
  }

  /** Sends `payload` from one process to another; returns the message id used in the trace. */
  send(from: SimProcess, to: SimProcess, payload: M): number {
    const id = this.nextMessageId++;
    const link = this.link(from, to);
    const resolved = link.resolved ?? (link.resolved = this.resolve(from, to));
    const dropDraw = link.stream.next();
    const duplicateDraw = link.stream.next();
    const firstLatencyDraw = link.stream.next();
    const secondLatencyDraw = link.stream.next();
    const trace = this.kernel.trace;
    if (trace.includes('net.send')) trace.record('net.send', this.describe(id, from.name, to.name, payload), from.name);
    const lostBecause = this.lossAtSend(from, to, dropDraw < resolved.dropProbability);
    if (lostBecause !== undefined) {
      this.drop(id, from.name, to.name, lostBecause);
      return id;
    }
    const sentAtMs = this.kernel.now();
    this.dispatch(link, resolved, firstLatencyDraw, { id, from: from.name, to: to.name, sentAtMs, payload, duplicate: false }, from, to);
    if (duplicateDraw < resolved.duplicateProbability) {
      this.kernel.trace.record('net.duplicate', { id }, from.name);
      this.dispatch(link, resolved, secondLatencyDraw, { id, from: from.name, to: to.name, sentAtMs, payload, duplicate: true }, from, to);
    }
    return id;
  }

  /** Replaces the defaults (lowest priority). */
  setDefaults(spec: LinkSpec): void {
    resolveLink([spec], `${this.name} defaults`);
    this.defaults = spec;
    this.invalidate();
  }

  /** Overrides the directed link from -> to (highest priority); undefined removes the override. */
  setLink(from: string, to: string, spec: LinkSpec | undefined): void {
    if (spec === undefined) this.linkOverrides.delete(linkKey(from, to));
    else this.linkOverrides.set(linkKey(from, to), spec);
    this.invalidate();
  }

  /** Sets links from region a to region b, and from b to a unless `bothWays` is false. */
  setRegionPair(regionA: string, regionB: string, spec: LinkSpec, options: { readonly bothWays?: boolean } = {}): void {
    this.regionPairs.set(linkKey(regionA, regionB), spec);
    if (options.bothWays ?? true) this.regionPairs.set(linkKey(regionB, regionA), spec);
    this.invalidate();
  }

  /** Starts a partition; it heals at spec.healAtMs if given, or by heal(id). */
  partition(spec: PartitionSpec): PartitionId {
    const id = this.nextPartitionId++;
    this.partitions.set(id, new ActivePartition(id, spec));
    this.kernel.trace.record('net.partition', { direction: spec.direction ?? 'both', from: spec.from, healAtMs: spec.healAtMs, id, to: spec.to });
    if (spec.healAtMs !== undefined) this.kernel.schedule(spec.healAtMs, () => this.heal(id));
    return id;
  }

  /** Ends a partition; false if it had already healed. */
  heal(id: PartitionId): boolean {
    if (!this.partitions.delete(id)) return false;
    this.kernel.trace.record('net.heal', { id });
    return true;
  }

  /** Ends every partition. */
  healAll(): void {
    for (const id of [...this.partitions.keys()]) this.heal(id);
  }

  /** True if an active partition cuts the directed link from -> to. */
  isCut(from: string, to: string): boolean {
    if (this.partitions.size === 0) return false;
    for (const partition of this.partitions.values()) if (partition.cuts(from, to)) return true;
    return false;
  }

  private lossAtSend(from: SimProcess, to: SimProcess, dropCoin: boolean): DropReason | undefined {
    if (from.state === 'crashed') return 'sender-crashed';
    if (this.isCut(from.name, to.name)) return 'partition';
    return dropCoin ? 'random' : undefined;
  }

  private dispatch(link: LinkState, resolved: ResolvedLink, latencyDraw: number, delivery: Delivery<M>, sender: SimProcess, to: SimProcess): void {
    if (this.inFlightCount >= this.maxInFlight) {
      throw new Error(`${this.name}: more than maxInFlight (${this.maxInFlight}) messages in flight; raise NetworkOptions.maxInFlight or look for a sender without back-pressure`);
    }
    let arrivalMs = this.kernel.now() + resolved.latency(latencyDraw) + resolved.extraDelayMs;
    if (resolved.ordered) arrivalMs = Math.max(arrivalMs, link.lastArrivalMs);
    link.lastArrivalMs = Math.max(link.lastArrivalMs, arrivalMs);
    // A receiver that is down at the send can never take this message, even if it restarts before it
    // arrives: a connection to a dead process is refused. -1 matches no incarnation.
    const incarnation = to.state === 'crashed' ? -1 : to.incarnation;
    this.inFlightCount++;
    this.kernel.schedule(arrivalMs, () => this.arrive(delivery, sender, to, incarnation));
  }

  private arrive(delivery: Delivery<M>, sender: SimProcess, to: SimProcess, incarnationAtSend: number): void {
    this.inFlightCount--;
    const { id, from } = delivery;
    if (this.isCut(from, to.name)) return this.drop(id, from, to.name, 'partition');
    if (to.state === 'crashed' || to.incarnation !== incarnationAtSend) {
      // Down at the send: the connect was refused; up then: the connection it was on was reset.
      this.answers.unreachable(sender, to, id, incarnationAtSend === -1 ? 'refused' : 'reset');
      return this.drop(id, from, to.name, to.state === 'crashed' ? 'crashed' : 'restarted');
    }
    this.answers.connected(sender, to); // its host took the connection, paused or not: a crash now resets it
    // A running receiver takes it at once (what deliver() does), without a closure per message.
    if (to.state === 'running') {
      this.kernel.adopt(this.handOver(delivery, sender, to));
      return;
    }
    const outcome = to.deliver(() => this.handOver(delivery, sender, to));
    if (outcome === 'held') this.kernel.trace.record('net.held', { from, id }, to.name);
  }

  private handOver(delivery: Delivery<M>, sender: SimProcess, to: SimProcess): unknown {
    const { id, from } = delivery;
    const listener = this.listeners.get(to.name);
    if (listener === undefined || listener.incarnation !== to.incarnation) {
      this.answers.unreachable(sender, to, id, 'refused'); // nothing listens on the port
      return this.drop(id, from, to.name, 'no-listener');
    }
    const trace = this.kernel.trace;
    if (trace.includes('net.deliver')) trace.record('net.deliver', { duplicate: delivery.duplicate, from, id }, to.name);
    return listener.handler(delivery);
  }

  private drop(id: number, from: string, to: string, reason: DropReason): void {
    this.kernel.trace.record('net.drop', { from, id, reason, to }, reason === 'sender-crashed' || reason === 'partition' || reason === 'random' ? from : to);
  }

  private describe(id: number, from: string, to: string, payload: M): Record<string, unknown> {
    const fields: Record<string, unknown> = { id, to, type: messageType(payload) };
    if (this.tracePayloads) fields['payload'] = payload;
    return fields;
  }

  // Links by sender, then receiver: two lookups on the process names, no key string built per send.
  private link(from: SimProcess, to: SimProcess): LinkState {
    let fromLinks = this.links.get(from.name);
    if (fromLinks === undefined) this.links.set(from.name, (fromLinks = new Map()));
    let link = fromLinks.get(to.name);
    if (link === undefined) {
      link = { stream: this.kernel.rng.stream(`${this.name}/link/${linkKey(from.name, to.name)}`), resolved: undefined, lastArrivalMs: 0 };
      fromLinks.set(to.name, link);
    }
    return link;
  }

  private resolve(from: SimProcess, to: SimProcess): ResolvedLink {
    const key = linkKey(from.name, to.name);
    const layers = [this.defaults, this.regionPairs.get(linkKey(from.region, to.region)), this.linkOverrides.get(key)];
    return resolveLink(layers, `${this.name} link ${key}`);
  }

  private invalidate(): void {
    for (const fromLinks of this.links.values()) for (const link of fromLinks.values()) link.resolved = undefined;
  }
}

function linkKey(from: string, to: string): string {
  return `${from}->${to}`;
}

/**
 * The type a trace record gives a message: its `type`, or its `kind` and, for an rpc call, the method
 * (`arbiter.call:keepAlive`), so a reader of the trace (the timeline's keepalive marks) can tell a
 * session keepalive from an acquire without the payload.
 */
export function messageType(payload: unknown): string {
  if (typeof payload === 'object' && payload !== null) {
    const { type, kind, method } = payload as { type?: unknown; kind?: unknown; method?: unknown };
    if (typeof type === 'string') return type;
    if (typeof kind === 'string') return typeof method === 'string' ? `${kind}:${method}` : kind;
  }
  return typeof payload;
}
