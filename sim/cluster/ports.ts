// Who is who on a cluster network: a directory of processes by name (a member answers a client it knows
// only by name), and per process a port multiplexer, so that several components of one process (two
// SimLockLogs of an arbiter, a member) share its single network listener. Messages name their port;
// messages without one go to the member port. A crash loses the bindings with the process's memory;
// whoever binds again in the new incarnation listens again.
import type { Network } from '../net/network.js';
import type { SimProcess } from '../process/process.js';
import { MEMBER_PORT, type ClusterMessage } from './protocol.js';

export type ClusterNetwork = Network<ClusterMessage>;
export type PortHandler = (payload: ClusterMessage, from: string) => void;

interface Directory {
  readonly processes: Map<string, SimProcess>;
  readonly muxes: Map<string, PortMux>;
}

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
  private listening = -1;

  constructor(
    private readonly network: ClusterNetwork,
    readonly process: SimProcess,
  ) {
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

  /** Sends from this process to the process named `to`. */
  send(to: string, payload: ClusterMessage): void {
    const target = processNamed(this.network, to);
    if (target === undefined) throw new Error(`cluster network: no process named ${to} is known; members and clients register when they are made`);
    this.network.send(this.process, target, payload);
  }
}
