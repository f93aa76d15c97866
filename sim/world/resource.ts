// A guarded resource (ADR-16/17): a process that takes writes carrying a fencing token. Fenced, it keeps
// a high-water mark per key and judges each write by the fence rule (core/fence), atomically with the
// write, as the reference fences do (`UPDATE ... WHERE fence < $token`). Unfenced, it accepts everything,
// which is what makes an advisory class advisory. Every write is recorded for the fence checker, and
// the value of the last write it took on each key can be read back (the pause test kit reads it).
import { DEFAULT_FENCE_MODE, type FenceMode, fenceAccepts } from '../../core/fence/index.js';
import type { Deferred, Kernel } from '../kernel/kernel.js';
import type { Network } from '../net/network.js';
import type { SimProcess } from '../process/process.js';

export type ResourceMessage =
  | { readonly kind: 'resource.write'; readonly id: number; readonly key: string; readonly token: bigint; readonly holder: string; readonly value?: string }
  | { readonly kind: 'resource.ack'; readonly id: number; readonly accepted: boolean };

export interface RecordedWrite {
  readonly resource: string;
  readonly key: string;
  readonly holder: string;
  readonly token: bigint;
  /** True time the write started at the resource, and when it finished. */
  readonly atMs: number;
  readonly endMs: number;
  readonly accepted: boolean;
}

export interface ResourceOptions {
  readonly fenced: boolean;
  /** The fence rule's mode when fenced (core/fence); ADR-16's strict `above` by default. */
  readonly fenceMode?: FenceMode;
  /** How long one write occupies the resource (its effect spans [arrival, arrival + writeMs]). */
  readonly writeMs: number;
}

/** What a key of the resource holds: the last write it took there. */
export interface StoredValue {
  readonly token: bigint;
  readonly holder: string;
  /** The value the write carried, if it carried one. */
  readonly value: string | undefined;
}

export class SimResource {
  readonly writes: RecordedWrite[] = [];
  private readonly highWater = new Map<string, bigint>();
  private readonly stored = new Map<string, StoredValue>();

  constructor(
    readonly process: SimProcess,
    private readonly network: Network<ResourceMessage>,
    readonly options: ResourceOptions,
    peers: (name: string) => SimProcess,
  ) {
    const listen = (): void =>
      network.listen(process, (delivery) => {
        const message = delivery.payload;
        if (message.kind !== 'resource.write') return;
        const atMs = process.kernel.now();
        const accepted = !options.fenced || fenceAccepts(this.highWater.get(message.key), message.token, options.fenceMode ?? DEFAULT_FENCE_MODE);
        if (accepted && options.fenced) this.highWater.set(message.key, message.token);
        if (accepted) this.stored.set(message.key, { token: message.token, holder: message.holder, value: message.value });
        this.writes.push({ resource: process.name, key: message.key, holder: message.holder, token: message.token, atMs, endMs: atMs + options.writeMs, accepted });
        process.kernel.trace.record('resource.write', { key: message.key, token: message.token.toString(), holder: message.holder, accepted }, process.name);
        process.setTimer(options.writeMs, () => network.send(process, peers(delivery.from), { kind: 'resource.ack', id: message.id, accepted }));
      });
    listen();
    process.onRestart(listen);
  }

  get name(): string {
    return this.process.name;
  }

  /** What `key` holds now, read at the resource itself (not from any writer's answer); undefined before the first accepted write. */
  read(key: string): StoredValue | undefined {
    return this.stored.get(key);
  }
}

/** A client's handle on resources: one write is one message and one acknowledgement. */
export class ResourceClient {
  private nextId = 0;
  private readonly pending = new Map<number, Deferred<boolean>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly network: Network<ResourceMessage>,
    private readonly client: SimProcess,
    private readonly identity: string,
  ) {
    network.listen(client, (delivery) => {
      const message = delivery.payload;
      if (message.kind !== 'resource.ack') return;
      this.pending.get(message.id)?.resolve(message.accepted);
      this.pending.delete(message.id);
    });
  }

  /** Resolves with whether the resource accepted the write; never settles if the answer is lost. */
  write(resource: SimResource, key: string, token: bigint, value?: string): Promise<boolean> {
    const id = this.nextId++;
    const answer = this.kernel.deferred<boolean>();
    this.pending.set(id, answer);
    const message = { kind: 'resource.write', id, key, token, holder: this.identity } as const;
    this.network.send(this.client, resource.process, value === undefined ? message : { ...message, value });
    return answer.promise;
  }
}
