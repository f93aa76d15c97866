// SimLockLog's view of its endpoints, as a gRPC channel per member would hold it: which member the next
// call goes to (moving on after a failure, like src/etcd/endpoint-set.ts), a health flag per member (set
// by a refused or reset connection or an unanswered keepalive ping, cleared after the reconnect
// backoff), and the keepalive pings that run while watches are open on a member.
import type { Kernel } from '../kernel/kernel.js';
import type { SimProcess, TimerId } from '../process/process.js';

export interface EndpointOptions {
  readonly reconnectBackoffMs: number;
  readonly keepaliveTimeMs: number;
  readonly keepaliveTimeoutMs: number;
}

export interface EndpointHooks {
  sendPing(endpoint: number, pingId: number): void;
  /** The keepalive went unanswered: the connection counts as lost. */
  pingTimedOut(endpoint: number): void;
  /** Active watches on the endpoint (pings run only while there are some). */
  activeWatches(endpoint: number): number;
}

interface Endpoint {
  readonly name: string;
  downUntilLocalMs: number;
  pingTimer: TimerId;
  pongTimer: TimerId;
}

export class Endpoints {
  private readonly endpoints: Endpoint[];
  private readonly indexes = new Map<string, number>();
  private current = 0;
  private nextPingId = 0;

  constructor(
    names: readonly string[],
    private readonly kernel: Kernel,
    private readonly client: SimProcess,
    private readonly port: string,
    private readonly options: EndpointOptions,
    private readonly hooks: EndpointHooks,
  ) {
    this.endpoints = names.map((name) => ({ name, downUntilLocalMs: -1, pingTimer: -1, pongTimer: -1 }));
    this.endpoints.forEach((endpoint, i) => this.indexes.set(endpoint.name, i));
  }

  get count(): number {
    return this.endpoints.length;
  }

  get currentName(): string {
    return this.name(this.current);
  }

  name(index: number): string {
    return this.endpoints[index]!.name;
  }

  indexOf(name: string): number | undefined {
    return this.indexes.get(name);
  }

  /** The current endpoint, skipping (and moving past) flagged ones: nothing is sent to those. */
  pick(): number | undefined {
    const nowMs = this.client.localNow();
    for (let attempt = 0; attempt < this.endpoints.length; attempt++) {
      const index = this.current;
      if (this.endpoints[index]!.downUntilLocalMs <= nowMs) return index;
      this.moveOn(index);
    }
    return undefined;
  }

  /** The member that answered a hedged call first serves every later call (src/etcd/endpoint-set.ts does the same). */
  makeCurrent(index: number): void {
    this.current = index;
  }

  /** The next call goes to the endpoint after `failed`, unless another call already moved on. */
  moveOn(failed: number): void {
    if (this.current === failed) this.current = (failed + 1) % this.endpoints.length;
  }

  /** gRPC's channel state after a failed connection: skipped for the reconnect backoff. */
  markDown(index: number, why: string): void {
    const endpoint = this.endpoints[index]!;
    endpoint.downUntilLocalMs = this.client.localNow() + this.options.reconnectBackoffMs;
    this.kernel.trace.record('lock-log.endpoint-down', { endpoint: endpoint.name, port: this.port, why }, this.client.name);
    this.stopPinging(index);
    this.moveOn(index);
  }

  /** Starts or stops the keepalive pings of `index` to match its active watches. */
  keepPinging(index: number): void {
    const endpoint = this.endpoints[index]!;
    if (this.hooks.activeWatches(index) === 0) return this.stopPinging(index);
    if (endpoint.pingTimer >= 0 || endpoint.pongTimer >= 0) return;
    endpoint.pingTimer = this.client.setTimer(this.options.keepaliveTimeMs, () => {
      endpoint.pingTimer = -1;
      if (this.hooks.activeWatches(index) === 0) return;
      this.hooks.sendPing(index, this.nextPingId++);
      endpoint.pongTimer = this.client.setTimer(this.options.keepaliveTimeoutMs, () => {
        endpoint.pongTimer = -1;
        this.hooks.pingTimedOut(index);
      });
    });
  }

  onPong(from: string): void {
    const index = this.indexes.get(from);
    if (index === undefined) return;
    const endpoint = this.endpoints[index]!;
    if (endpoint.pongTimer < 0) return;
    this.client.cancelTimer(endpoint.pongTimer);
    endpoint.pongTimer = -1;
    this.keepPinging(index);
  }

  stopAll(): void {
    this.endpoints.forEach((_, i) => this.stopPinging(i));
  }

  private stopPinging(index: number): void {
    const endpoint = this.endpoints[index]!;
    if (endpoint.pingTimer >= 0) this.client.cancelTimer(endpoint.pingTimer);
    if (endpoint.pongTimer >= 0) this.client.cancelTimer(endpoint.pongTimer);
    endpoint.pingTimer = -1;
    endpoint.pongTimer = -1;
  }
}
