// What the deadline checker (core/checkers/deadline.ts, ADR-12 stage two) needs from a run: when each
// holder's client library fenced each hold, and when each holder's process could not run.
//
// Fences are read at the client's lock.v1 port, not from the holders' onFence callbacks. The library
// fences a session (at its deadline, when a keepalive is answered "session expired", or when the client
// closes it) and in the same step calls onFence for the handles still held and sends closeSession
// (core/client/lock-client.ts). A handle the holder has already released is not called back, and runHolder
// releases as soon as canStart() says no, typically before the deadline while the release cannot reach
// the log; that hold then expires with no onFence at all, though the library did fence it, early or late.
// ADR-12's claim is about that library deadline, so the probe notes the first closeSession of each session
// and gives the fence to every hold the log granted on it (GrantRecord.session).
//
// Outages come from the trace (process.pause/resume/crash/restart): facts the simulator records anyway,
// exact to the event, whatever paused the process (a pause fault, a brownout's freeze, a crash).
//
// Neither changes the run: the wrapper hands back each call's own promise, and trace listeners do not
// touch the trace or its hash.
import type { FenceRecord, GrantRecord, HolderOutage } from '../core/checkers/index.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import type { SimProcess } from '../sim/process/process.js';
import type { TraceRecord } from '../sim/trace/trace.js';
import type { World } from '../sim/world/world.js';

/** The process records an outage is read from (onRecord). */
const PROCESS_STATE_KINDS = ['process.pause', 'process.crash', 'process.resume', 'process.restart'];

interface Span {
  readonly process: string;
  readonly kind: HolderOutage['kind'];
  readonly fromMs: number;
  toMs?: number;
}

export interface DeadlineRecords {
  readonly fences: FenceRecord[];
  readonly outages: HolderOutage[];
}

export class DeadlineProbe {
  /** `[identity, session]` to when its library first sent closeSession. */
  private readonly fencedAtMs = new Map<string, number>();
  /** Names of the client processes whose lock.v1 calls pass through the probe. */
  private readonly probed = new Set<string>();
  private readonly spans: Span[] = [];
  /** Each process's outage still going on. */
  private readonly open = new Map<string, Span>();

  /** Make it right after the World, before any fault can fire. */
  constructor(private readonly world: World) {
    world.kernel.trace.subscribe((record) => this.onRecord(record), { kinds: PROCESS_STATE_KINDS });
  }

  /** Give this to World.addClient's wrapApi (outermost, when composed with another wrapper) for every client that may hold a lock. */
  readonly wrapApi = (api: ArbiterApi, process: SimProcess): ArbiterApi => {
    this.probed.add(process.name);
    return {
      openSession: (request) => api.openSession(request),
      keepAlive: (request) => api.keepAlive(request),
      closeSession: (request) => {
        // ADR-19: the request names no identity; the process's client does.
        const identity = this.world.clients.find((client) => client.process === process)?.identity ?? process.name;
        const id = sessionId(identity, request.sessionId);
        if (!this.fencedAtMs.has(id)) this.fencedAtMs.set(id, this.world.kernel.now());
        return api.closeSession(request);
      },
      acquire: (request) => api.acquire(request),
      release: (request) => api.release(request),
      validate: (request) => api.validate(request),
      inspect: (key) => api.inspect(key),
      describeKey: (request) => api.describeKey(request),
      requestForceRelease: (request) => api.requestForceRelease(request),
      approveForceRelease: (request) => api.approveForceRelease(request),
      requestEpochAdvance: (request) => api.requestEpochAdvance(request),
      approveEpochAdvance: (request) => api.approveEpochAdvance(request),
      status: () => api.status(),
    };
  };

  /**
   * The fence of every hold in `grants` whose session its holder's library fenced, and the outages of
   * the world's clients. Throws if a holder's client was not probed: its fences would be missing, and
   * every expiry of its holds would read as a fence never called.
   */
  records(grants: readonly GrantRecord[]): DeadlineRecords {
    const clients = this.world.clients;
    const unprobed = clients.filter((c) => !this.probed.has(c.process.name) && grants.some((g) => g.holder === c.identity));
    if (unprobed.length > 0) {
      const names = unprobed.map((c) => c.process.name).join(', ');
      const which = unprobed.length === 1 ? `client ${names} holds locks but was` : `clients ${names} hold locks but were`;
      throw new Error(`scenario setup: ${which} added without DeadlineProbe.wrapApi; pass it in World.addClient's options`);
    }
    const fences = grants.flatMap((g): FenceRecord[] => {
      const atMs = g.session === undefined ? undefined : this.fencedAtMs.get(sessionId(g.holder, g.session));
      return atMs === undefined ? [] : [{ holder: g.holder, key: g.key, token: g.token, atMs }];
    });
    // Several clients may share an identity (one per shard); an outage of one then excuses the identity's holds.
    const identityOf = new Map(clients.map((c) => [c.process.name, c.identity]));
    const outages = this.spans.flatMap((span): HolderOutage[] => {
      const holder = identityOf.get(span.process);
      if (holder === undefined) return [];
      return [{ holder, kind: span.kind, fromMs: span.fromMs, ...(span.toMs === undefined ? {} : { toMs: span.toMs }) }];
    });
    return { fences, outages };
  }

  private onRecord(record: TraceRecord): void {
    const close = (): void => {
      const span = this.open.get(record.process);
      if (span !== undefined) span.toMs = record.timeMs;
      this.open.delete(record.process);
    };
    const start = (kind: Span['kind']): void => {
      const span: Span = { process: record.process, kind, fromMs: record.timeMs };
      this.spans.push(span);
      this.open.set(record.process, span);
    };
    switch (record.kind) {
      case 'process.pause':
        return start('pause');
      case 'process.crash':
        close(); // a paused process may crash: the pause ends there, the outage goes on
        return start('crash');
      case 'process.resume':
      case 'process.restart':
        return close();
    }
  }
}

function sessionId(identity: string, session: bigint): string {
  return `${identity} ${session.toString(10)}`;
}
