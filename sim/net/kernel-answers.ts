// What a dead process's host kernel answers its peers (issue 32): a crashed process's open connections
// are reset (kill -9 closes its sockets; the kernel sends RST), and a connect to it is refused (no socket
// listens on the port). A process comes back on the same address when it restarts (its name), so a peer
// that reconnects reaches the new incarnation. Before, a simulated crash dropped messages in silence and
// a client waited for its call deadline (gate, crash/restart arbiter: next grant predicted 3489 / 5933 ms,
// measured 211 / 402 ms).
//
// A process that listens with an `onUnreachable` handler is told: the lock.v1 client (sim/rpc) and, since
// model 3, every process of a cluster network (sim/cluster/ports.ts: members, their raft and leasehttp
// peers, SimLockLogs), so a member's crash resets its clients' calls, watches and keepalives and its peers'
// streams, a message in flight when it died included. The others see the drop as before. The answer
// crosses the reverse link after its median latency plus its extra delay, with no random draw (no other
// message's latency moves), and is lost to a partition that cuts the reverse link when it arrives, or to a
// sender that crashed meanwhile. A machine without power (a crash with `powerLoss`) answers nothing, until
// its process restarts: its peers have only their timeouts.
import type { Kernel } from '../kernel/kernel.js';
import type { SimProcess } from '../process/process.js';

/** `refused`: the message never reached a process (nothing was sent); `reset`: a connection it was on died. */
export type UnreachableReason = 'refused' | 'reset';

export interface Unreachable {
  /** The peer that is gone. */
  readonly peer: string;
  readonly reason: UnreachableReason;
  /** The message refused; undefined for a reset of the whole connection (every call on it). */
  readonly messageId?: number;
}

export type UnreachableHandler = (notice: Unreachable) => unknown;

export interface AnswerRoute {
  /** True time the kernel's answer takes from `peer` back to `to` (the reverse link), ms. */
  latencyMs(peer: SimProcess, to: SimProcess): number;
  isCut(from: string, to: string): boolean;
  /** The handler `process` listens with in its current incarnation, if any. */
  handlerOf(process: SimProcess): UnreachableHandler | undefined;
}

/** Which processes have a connection to which, and the answers a crash sends them. */
export class KernelAnswers {
  /** Receiver name -> the processes with a connection to its current incarnation. */
  private readonly peersOf = new Map<string, Map<string, SimProcess>>();
  private readonly watched = new WeakSet<SimProcess>();

  constructor(private readonly kernel: Kernel, private readonly route: AnswerRoute) {}

  /** `from` reached `to` (a delivery): from now on it has a connection that `to`'s crash resets. */
  connected(from: SimProcess, to: SimProcess): void {
    if (this.route.handlerOf(from) === undefined) return;
    this.watch(to);
    let peers = this.peersOf.get(to.name);
    if (peers === undefined) this.peersOf.set(to.name, (peers = new Map()));
    peers.set(from.name, from);
  }

  /** A message of `from` met no process at `to` (down, restarted since, or not listening). */
  unreachable(from: SimProcess, to: SimProcess, messageId: number, reason: UnreachableReason): void {
    if (to.poweredOff || this.route.handlerOf(from) === undefined) return;
    this.answer(to, from, { peer: to.name, reason, messageId });
  }

  private watch(process: SimProcess): void {
    if (this.watched.has(process)) return;
    this.watched.add(process);
    process.onCrash((_, { powerLoss }) => {
      const peers = this.peersOf.get(process.name);
      this.peersOf.delete(process.name);
      if (powerLoss) return; // no kernel left to send a reset
      for (const peer of peers?.values() ?? []) this.answer(process, peer, { peer: process.name, reason: 'reset' });
    });
  }

  private answer(dead: SimProcess, to: SimProcess, notice: Unreachable): void {
    const incarnation = to.incarnation;
    this.kernel.scheduleAfter(this.route.latencyMs(dead, to), () => {
      if (to.state === 'crashed' || to.incarnation !== incarnation || this.route.isCut(dead.name, to.name)) return;
      const handler = this.route.handlerOf(to);
      if (handler === undefined) return;
      to.deliver(() => {
        this.kernel.trace.record(`net.${notice.reason}`, { ...(notice.messageId === undefined ? {} : { id: notice.messageId }), peer: notice.peer }, to.name);
        return handler(notice);
      });
    });
  }
}
