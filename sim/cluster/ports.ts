// Who is who on a cluster network: a directory of processes by name (a member answers a client it knows
// only by name), and per process a port multiplexer, so that several components of one process (two
// SimLockLogs of an arbiter, a member) share its single network listener. Messages name their port;
// messages without one go to the member port. A crash loses the bindings with the process's memory;
// whoever binds again in the new incarnation listens again.
//
// Connections, as the machines' TCP stacks see them: a connection attempt to a process that is down on
// a machine that is up is refused (RST), and the sender learns it one round trip later; a machine that
// is down (power loss) or cut off answers nothing, so the sender only has its timeouts. A process crash
// resets the connections it had open (EtcdMember does that for its clients and peers).
import type { Network } from '../net/network.js';
import type { SimProcess } from '../process/process.js';
import { MEMBER_PORT, type ClusterMessage } from './protocol.js';

export type ClusterNetwork = Network<ClusterMessage>;
export type PortHandler = (payload: ClusterMessage, from: string) => void;

interface Directory {
  readonly processes: Map<string, SimProcess>;
  readonly muxes: Map<string, PortMux>;
  /** Machines without power: their TCP stack does not answer either. */
  readonly machinesDown: Set<string>;
}

/** One-way latency of a TCP reset or refusal (a fixed small value: the RST is one tiny packet). */
export const CONNECTION_RESET_DELAY_MS = 1;

const directories = new WeakMap<ClusterNetwork, Directory>();

function directoryOf(network: ClusterNetwork): Directory {
  let directory = directories.get(network);
  if (directory === undefined) directories.set(network, (directory = { processes: new Map(), muxes: new Map(), machinesDown: new Set() }));
  return directory;
}

/** The process named `name` on this network, if some component registered it. */
export function processNamed(network: ClusterNetwork, name: string): SimProcess | undefined {
  return directoryOf(network).processes.get(name);
}

/** Marks the machine of process `name` as without power (true) or back (false). */
export function setMachineDown(network: ClusterNetwork, name: string, down: boolean): void {
  const { machinesDown } = directoryOf(network);
  if (down) machinesDown.add(name);
  else machinesDown.delete(name);
}

/**
 * What a crashed process's machine does with its open connections (unless it lost power): reset them.
 * Each peer's ports get a `transport.reset` one link latency later, unless a partition is in the way.
 */
export function resetConnections(network: ClusterNetwork, dead: SimProcess, connections: ReadonlyMap<string, ReadonlySet<string>>): void {
  if (connections.size === 0) return;
  const copied = [...connections].map(([peer, ports]) => [peer, [...ports]] as const);
  dead.kernel.trace.record('net.reset', { peers: copied.map(([peer]) => peer) }, dead.name);
  dead.kernel.scheduleAfter(CONNECTION_RESET_DELAY_MS, () => {
    for (const [peer, ports] of copied) {
      const target = processNamed(network, peer);
      if (target === undefined || network.isCut(dead.name, peer)) continue;
      const mux = portsOf(network, target);
      target.deliver(() => {
        for (const port of ports) mux.dispatch({ type: 'transport.reset', port, peer: dead.name }, dead.name);
      });
    }
  });
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
  private readonly directory: Directory;
  private listening = -1;

  constructor(
    private readonly network: ClusterNetwork,
    readonly process: SimProcess,
  ) {
    this.directory = directoryOf(network);
    process.onCrash(() => {
      this.handlers.clear();
      this.listening = -1;
    });
  }

  /** Binds `port` in the current incarnation; returns an unbind. */
  bind(port: string, handler: PortHandler): () => void {
    if (this.handlers.has(port)) throw new Error(`process ${this.process.name}: port ${port} is already bound`);
    this.handlers.set(port, handler);
    if (this.listening !== this.process.incarnation) {
      this.listening = this.process.incarnation;
      this.network.listen(this.process, (delivery) => this.dispatch(delivery.payload, delivery.from));
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
    const refused = target.state === 'crashed' && !this.directory.machinesDown.has(to) && !network.isCut(process.name, to) && !network.isCut(to, process.name);
    if (!refused) {
      this.network.send(process, target, payload);
      return;
    }
    process.kernel.trace.record('net.refused', { to, type: payload.type }, process.name);
    const incarnation = process.incarnation;
    process.kernel.scheduleAfter(2 * CONNECTION_RESET_DELAY_MS, () => {
      if (process.incarnation === incarnation) process.deliver(onRefused);
    });
  }

  private target(to: string): SimProcess {
    const target = this.directory.processes.get(to);
    if (target === undefined) throw new Error(`cluster network: no process named ${to} is known; members and clients register when they are made`);
    return target;
  }
}
