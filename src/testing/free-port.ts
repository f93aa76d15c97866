// Free loopback ports for the processes tests start (etcd members, `lockstep serve`, PostgreSQL, proxies),
// and for the gate's and the planner's real runs.
//
// Why not "listen on port 0, read the port, close": port 0 draws from the ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 here), the range every outbound connection's source
// port and every other port-0 listener also draw from. Between the close and the child's bind a moment
// later, the kernel may hand the same port to another vitest worker's grab, to a link proxy or HTTP
// server listening on port 0, or to a connection's source port. Then the child fails to bind, or worse,
// a test talks to someone else's server: an etcd peer port answers gRPC health probes and "404 page not
// found" over HTTP (the link-mesh flake), a live etcd answers a test whose own etcd is stopped (the
// etcd-lock-log flake).
//
// So ports come from below the ephemeral range (from PORT_FLOOR up), never handed out by port 0, split
// into blocks: one per vitest worker (VITEST_POOL_ID), so files running at once never share a port, and
// the rest for other processes, chosen by pid (a CLI gate or quorum --measure run). A block is walked in
// order (round-robin), so a port just released is the last one handed out again, and each candidate is
// bound first (exclusive) and skipped when busy. A child process a test spawns inherits the worker's
// VITEST_POOL_ID, so its walk starts at an offset chosen by its own pid. Tests never use etcd's
// well-known ports: the Debian package may run a system etcd on 2379/2380 (src/testing/etcd-binary.ts).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const LOOPBACK_HOST = '127.0.0.1';

/** Inclusive. */
export interface PortRange {
  readonly first: number;
  readonly last: number;
}

const EPHEMERAL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
const DEFAULT_EPHEMERAL: PortRange = { first: 32768, last: 60999 }; // Linux's default, when the file is missing
const PORT_FLOOR = 20_000; // below it live well-known services (PostgreSQL 5432, etcd 2379, ...)
const PORT_CEILING = 65_535;
/** Blocks for vitest workers (VITEST_POOL_ID 1..maxWorkers), then blocks chosen by pid. */
const WORKER_BLOCKS = 16;
const BLOCKS = 48;
const MIN_BLOCK_PORTS = 16;

/** The kernel's ephemeral range from the text of ip_local_port_range ("32768\t60999"), or Linux's default. */
export function parseEphemeralRange(text: string | undefined): PortRange {
  const [first, last] = (text ?? '').trim().split(/\s+/).map(Number);
  if (first === undefined || last === undefined || !Number.isInteger(first) || !Number.isInteger(last) || first > last) return DEFAULT_EPHEMERAL;
  return { first, last };
}

function readEphemeralRange(): PortRange {
  try {
    return parseEphemeralRange(readFileSync(EPHEMERAL_RANGE_FILE, 'utf8'));
  } catch {
    return DEFAULT_EPHEMERAL; // not Linux: assume its default
  }
}

/** The `blockId`th of BLOCKS equal blocks in the larger gap beside the ephemeral range (below it, from PORT_FLOOR, as a rule). */
export function blockRange(blockId: number, ephemeral: PortRange): PortRange {
  if (!Number.isInteger(blockId) || blockId < 0 || blockId >= BLOCKS) throw new Error(`port block ${blockId} is not one of 0..${BLOCKS - 1}`);
  const below = { first: PORT_FLOOR, last: ephemeral.first - 1 };
  const above = { first: ephemeral.last + 1, last: PORT_CEILING };
  const gap = below.last - below.first >= above.last - above.first ? below : above;
  const size = Math.floor((gap.last - gap.first + 1) / BLOCKS);
  if (size < MIN_BLOCK_PORTS) {
    throw new Error(`the ephemeral port range ${ephemeral.first}-${ephemeral.last} leaves too few ports outside it for ${BLOCKS} blocks of ${MIN_BLOCK_PORTS}: narrow ${EPHEMERAL_RANGE_FILE}`);
  }
  const first = gap.first + blockId * size;
  return { first, last: first + size - 1 };
}

/** A vitest worker's own block by its pool id (or worker id); any other process's by its pid. */
export function blockIdOf(env: NodeJS.ProcessEnv, pid: number): number {
  const workerId = Number(env['VITEST_POOL_ID'] ?? env['VITEST_WORKER_ID']);
  if (Number.isInteger(workerId) && workerId >= 1) return (workerId - 1) % WORKER_BLOCKS;
  return WORKER_BLOCKS + (pid % (BLOCKS - WORKER_BLOCKS));
}

/** True when nothing listens on 127.0.0.1:`port` (an exclusive bind succeeds); the port is free again after. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: LOOPBACK_HOST, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Hands out a block's ports in order, round-robin, skipping the busy ones. */
export class PortBlock {
  private next: number;

  constructor(
    readonly range: PortRange,
    startOffset = 0,
  ) {
    this.next = range.first + (startOffset % this.size);
  }

  get size(): number {
    return this.range.last - this.range.first + 1;
  }

  /** `count` distinct ports nothing listened on when checked (at most the block's size). */
  async take(count: number): Promise<number[]> {
    if (!Number.isInteger(count) || count < 1 || count > this.size) throw new Error(`asked for ${count} ports: ask for 1..${this.size} (a port block's size)`);
    const ports: number[] = [];
    for (let tried = 0; ports.length < count && tried < this.size; tried++) {
      const candidate = this.advance(); // before the await: concurrent calls get different candidates
      if (await canBind(candidate)) ports.push(candidate);
    }
    if (ports.length < count) throw new Error(`only ${ports.length} of ${count} ports free in ${this.range.first}-${this.range.last}: something holds the rest`);
    return ports;
  }

  private advance(): number {
    const port = this.next;
    this.next = port === this.range.last ? this.range.first : port + 1;
    return port;
  }
}

let processBlock: PortBlock | undefined;

/** This process's block; read on first use, after vitest has set the worker's VITEST_POOL_ID. */
function ownBlock(): PortBlock {
  processBlock ??= new PortBlock(blockRange(blockIdOf(process.env, process.pid), readEphemeralRange()), process.pid * 7);
  return processBlock;
}

/**
 * `count` distinct free ports from this process's block (see the file comment). They are free when this
 * resolves; something outside the tests may still bind one before the caller does, so callers that start
 * a process on them retry on "address already in use" (etcd-cluster.ts, postgres-server.ts).
 */
export function freePorts(count: number): Promise<number[]> {
  return ownBlock().take(count);
}
