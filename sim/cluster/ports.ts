// Who is who on a cluster network: a directory of processes by name (a member answers a client it knows
// only by name), and per process a port multiplexer, so that several components of one process (two
// SimLockLogs of an arbiter, a member) share its single network listener. Messages name their port;
// messages without one go to the member port. A crash loses the bindings with the process's memory;
// whoever binds again in the new incarnation listens again.
//
// Connections, as the machines' TCP stacks see them (issue 32, model 3): a crashed process's machine
// resets every connection it had and refuses connects while it is down, and a machine without power or cut
// off answers nothing, so the sender only has its timeouts. The network's kernel answers
// (sim/net/kernel-answers.ts) carry the resets and the refusals of messages on the wire, one rule for
// every simulated process: the mux listens with them and hands each peer's reset to the ports that talked
// to it as a `transport.reset`. `connectAndSend` refuses a new connection at the send, so the caller may try
// another endpoint (nothing was sent).
import type { Network } from '../net/network.js';
import type { SimProcess } from '../process/process.js';
import { MEMBER_PORT, type ClusterMessage } from './protocol.js';

export type ClusterNetwork = Network<ClusterMessage>;
export type PortHandler = (payload: ClusterMessage, from: string) => void;

interface Directory {
  readonly processes: Map<string, SimProcess>;
  readonly muxes: Map<string, PortMux>;
}

/** One-way latency of a refused connect's RST at `connectAndSend` (a fixed small value: one tiny packet). */
export const CONNECTION_RESET_DELAY_MS = 1;

const directories = new WeakMap<ClusterNetwork, Directory>();

function directoryOf(network: ClusterNetwork): Directory {
  let directory = directories.get(network);
  if (directory === undefined) directories.set(network, (directory = { processes: new Map(), muxes: new Map() }));
  return directory;
}

/** The process named `name` on this network, if some component registered it. */
export function processNamed(network: ClusterNetwork, name: string): SimProcess | undefined {
  return directoryOf(network).processes.get(name);
}

/** The port multiplexer of `process` on `network` (made and registered on first use). */
export function portsOf(network: ClusterNetwork, process: SimProcess): PortMux {
  const directory = directoryOf(network);
  const known = directory.processes.get(process.name);
  if (known !== undefined && known !== process) throw new Error(`cluster network: two processes are named ${process.name}`);
  directory.processes.set(process.name, process);
  let mux = directory.muxes.get(process.name);
  if (mux === undefined) directory.muxes.set(process.name, (mux = new PortMux(network, process)));
  return mux;
}

export class PortMux {
  private readonly handlers = new Map<string, PortHandler>();
  /** Peer -> the ports of this process that sent it something this incarnation (its open connections). */
  private readonly talkedTo = new Map<string, Set<string>>();
  private readonly directory: Directory;
  private listening = -1;

  constructor(
    private readonly network: ClusterNetwork,
    readonly process: SimProcess,
  ) {
    this.directory = directoryOf(network);
    process.onCrash(() => {
      this.handlers.clear();
      this.talkedTo.clear();
      this.listening = -1;
    });
  }

  /** Binds `port` in the current incarnation; returns an unbind. */
  bind(port: string, handler: PortHandler): () => void {
    if (this.handlers.has(port)) throw new Error(`process ${this.process.name}: port ${port} is already bound`);
    this.handlers.set(port, handler);
    if (this.listening !== this.process.incarnation) {
      this.listening = this.process.incarnation;
      this.network.listen(this.process, (delivery) => this.dispatch(delivery.payload, delivery.from), ({ peer }) => this.connectionsReset(peer));
    }
    return () => {
      if (this.handlers.get(port) === handler) this.handlers.delete(port);
    };
  }

  /** Hands a message to its port's handler; a message for an unbound port is dropped (connection refused). */
  dispatch(payload: ClusterMessage, from: string): void {
    const port = 'port' in payload ? payload.port : MEMBER_PORT;
    this.handlers.get(port)?.(payload, from);
  }

  /** Sends from this process to the process named `to` on an open connection (a lost message is silent). */
  send(to: string, payload: ClusterMessage): void {
    this.noteSent(to, payload);
    this.network.send(this.process, this.target(to), payload);
  }

  /**
   * Sends as the first message of a new connection (a gRPC call on a fresh channel, an HTTP POST): if
   * `to` is down on a machine that is up and reachable, the connection is refused and `onRefused` runs
   * in this process one round trip later; nothing was delivered.
   */
  connectAndSend(to: string, payload: ClusterMessage, onRefused: () => void): void {
    const target = this.target(to);
    const { network, process } = this;
    const refused = target.state === 'crashed' && !target.poweredOff && !network.isCut(process.name, to) && !network.isCut(to, process.name);
    if (!refused) {
      this.send(to, payload);
      return;
    }
    process.kernel.trace.record('net.refused', { to, type: payload.type }, process.name);
    const incarnation = process.incarnation;
    process.kernel.scheduleAfter(2 * CONNECTION_RESET_DELAY_MS, () => {
      if (process.incarnation === incarnation) process.deliver(onRefused);
    });
  }

  /**
   * The kernel's answer from `peer` (a reset of the connections to it, or a message on the wire that met
   * it dead or restarted): every port that talked to it learns that its connection is gone.
   */
  private connectionsReset(peer: string): void {
    const ports = this.talkedTo.get(peer);
    if (ports === undefined) return;
    this.talkedTo.delete(peer);
    for (const port of ports) this.dispatch({ type: 'transport.reset', port, peer }, peer);
  }

  /** The port a message leaves from: a request names its reply port; the member's own messages, none. */
  private noteSent(to: string, payload: ClusterMessage): void {
    const port = 'replyPort' in payload ? payload.replyPort : MEMBER_PORT;
    let ports = this.talkedTo.get(to);
    if (ports === undefined) this.talkedTo.set(to, (ports = new Set()));
    ports.add(port);
  }

  private target(to: string): SimProcess {
    const target = this.directory.processes.get(to);
    if (target === undefined) throw new Error(`cluster network: no process named ${to} is known; members and clients register when they are made`);
    return target;
  }
}
