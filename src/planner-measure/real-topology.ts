// A priced topology built of real processes (issue 32, "hold the planner to real etcd"): etcd members
// (Debian's 3.4.23, src/testing/etcd-cluster.ts) on loopback whose every peer link runs through the
// gate's link proxies (src/gate/links) adding the topology's one-way delay between their halls, one
// `lockstep serve` arbiter whose link to each member runs through a proxy with its hall's delay, and a
// proxy per client in front of the arbiter. The arbiter lists the topology's first member first, as the
// model assumes (ADR-08: its etcd client keeps it until an error). Stopped by stop(), also on failure;
// every process is reaped on exit (src/testing/process-reaper.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rttBetween, type Topology } from '../../core/planner/topology.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { LinkMesh } from '../gate/links/link-mesh.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';
import { forgetDirectory, removeOnExit } from '../testing/process-reaper.js';

export const MEASURE_NAMESPACE = 'payments'; // writeFencedClass's namespace
export const ARBITER = 'arbiter';
const SERVE_START_MS = 60_000;
const MEMBER_PREFIX = 'm';

export const clientName = (i: number): string => `client-${i}`;
export const identityOf = (client: string): string => `spiffe://lockstep.measure/ns/${MEASURE_NAMESPACE}/sa/${client}`;

/**
 * The delay a proxy adds for a link of round trip `rttMs`: half of it, in whole ms. Node's timers have
 * 1 ms granularity, so a sub-millisecond link (a hall's own 0.2 ms) is left to loopback and the proxy
 * hop itself (docs/planner.md, "Measured on real etcd").
 */
export function proxyDelayMs(rttMs: number): number {
  return Math.round(rttMs / 2);
}

/** Clients a measurement runs at most (each a closed loop with a proxy of its own, in the measuring process). */
export const MAX_MEASURED_CLIENTS = 64;
/** A one-way delay a proxy adds at most: beyond it etcd's default 1 s election timeout makes the cluster unstable. */
export const MAX_PROXY_DELAY_MS = 400;

/** Why real processes cannot be the topology, or undefined: etcd's kit starts 3 or 5 members, every link reachable and not too slow. */
export function measureProblem(topology: Topology): string | undefined {
  const count = topology.members.length;
  if (count !== 3 && count !== 5) return `has ${count} members; a measurement starts 3 or 5 (use a topology with 3 or 5 members)`;
  const halls = [topology.arbiter.hall, topology.clients.hall, ...topology.members.map((m) => m.hall)];
  for (const a of halls) {
    for (const b of halls) {
      const rtt = rttBetween(topology, a, b);
      if (!Number.isFinite(rtt)) return `halls ${a} and ${b} are unreachable from each other; a measurement needs every link (give their rttMs)`;
      if (proxyDelayMs(rtt) > MAX_PROXY_DELAY_MS) return `halls ${a} and ${b} are ${rtt} ms apart; a proxy adds at most ${MAX_PROXY_DELAY_MS} ms one way (measure a topology with shorter links)`;
    }
  }
  if (topology.clients.count > MAX_MEASURED_CLIENTS) return `has ${topology.clients.count} clients; a measurement runs at most ${MAX_MEASURED_CLIENTS} (give --clients)`;
  return undefined;
}

export interface RealTopologyOptions {
  readonly topology: Topology;
  /** Classes to serve, by name: `payments/NAME` with this TTL, fenced. */
  readonly classes: Readonly<Record<string, number>>;
  /** Client processes or loops that will dial the arbiter, each through a proxy of its own. */
  readonly clients: number;
  readonly say: (line: string) => void;
}

export class RealTopology {
  readonly mesh = new LinkMesh();
  private cluster: EtcdCluster | undefined;
  private arbiter: LockstepProcess | undefined;
  private arbiterArgs: string[] = [];
  private readonly dials: string[] = [];
  private arbiterPort = 0;
  private stopped = false;

  private constructor(
    readonly rootDir: string,
    readonly topology: Topology,
  ) {}

  static async start(options: RealTopologyOptions): Promise<RealTopology> {
    const rootDir = await mkdtemp(join(tmpdir(), 'lockstep-measure-'));
    removeOnExit(rootDir);
    const real = new RealTopology(rootDir, options.topology);
    try {
      await real.boot(options);
      return real;
    } catch (error) {
      await real.stop();
      throw error;
    }
  }

  /** The arbiter's address (its name for rendezvous) and where client `i` dials it (its proxy). */
  get arbiterAddress(): string {
    return `127.0.0.1:${this.arbiterPort}`;
  }

  dialFor(client: number): string {
    const dial = this.dials[client];
    if (dial === undefined) throw new Error(`no proxy for client ${client}: the topology was built for ${this.dials.length}`);
    return dial;
  }

  /** Client URLs of the members, in the topology's order (not through the proxies: for etcdctl and status). */
  get memberEndpoints(): string[] {
    return this.cluster?.endpoints ?? [];
  }

  memberPid(name: string): number | undefined {
    return this.cluster?.members[this.indexOf(name)]?.pid;
  }

  private indexOf(name: string): number {
    const index = this.topology.members.findIndex((m) => m.name === name);
    if (index < 0) throw new Error(`no member ${name} in ${this.topology.name}`);
    return index;
  }

  private async boot(options: RealTopologyOptions): Promise<void> {
    const { topology } = this;
    const count = topology.members.length;
    if (count !== 3 && count !== 5) throw new Error(`${topology.name}: a measured topology has 3 or 5 members, not ${count}`);
    options.say(`starting ${count} etcd members behind link proxies (${topology.name})`);
    this.cluster = await startEtcdCluster({
      members: count,
      namePrefix: MEMBER_PREFIX,
      startTimeoutMs: 90_000,
      advertisePeer: (kitName, port) => this.mesh.addPeer(this.memberName(kitName), port),
    });
    this.delayLinks();
    const endpoints = this.cluster.endpoints.map((url) => url.replace('http://', '')).join(',');
    const init = await runLockstep(['init', '--endpoints', endpoints]);
    if (init.code !== 0) throw new Error(`lockstep init --endpoints ${endpoints} exited ${init.code}: ${init.stderr.trim().slice(-500)}`);
    const classes = join(this.rootDir, 'classes');
    const grants = join(this.rootDir, 'grants');
    for (const dir of [classes, grants]) mkdirSync(dir, { recursive: true });
    for (const [name, ttlSeconds] of Object.entries(options.classes)) await writeFencedClass(classes, name, ttlSeconds);
    const grantDocs = Array.from({ length: options.clients }, (_, i) => clientName(i)).map((name) =>
      ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: ${MEASURE_NAMESPACE} }`, `spec: { identity: "${identityOf(name)}", prefixes: [${MEASURE_NAMESPACE}/] }`].join('\n'),
    );
    writeFileSync(join(grants, 'grants.yaml'), `${grantDocs.join('\n---\n')}\n`);
    const links: string[] = [];
    for (const [i, member] of this.cluster.members.entries()) links.push(await this.mesh.addClientLink(ARBITER, topology.members[i]!.name, Number(new URL(member.clientUrl).port)));
    this.arbiterPort = (await freePorts(1))[0]!;
    for (let i = 0; i < options.clients; i++) this.dials.push(await this.mesh.addClientLink(clientName(i), ARBITER, this.arbiterPort));
    this.arbiterArgs = ['serve', '--endpoints', links.join(','), '--classes', classes, '--grants', grants, '--listen', this.arbiterAddress];
    options.say('starting the lockstep serve arbiter');
    await this.restartArbiter();
  }

  /** The topology's kit name (m0, m1, ...) -> its member name. */
  private memberName(kitName: string): string {
    return this.topology.members[Number(kitName.slice(MEMBER_PREFIX.length))]!.name;
  }

  /** Every link's one-way delay, as rules of the mesh: member to member, arbiter to member, client to arbiter. */
  private delayLinks(): void {
    const t = this.topology;
    const slow = (from: string, to: string, hallA: string, hallB: string): void => {
      const delayMs = proxyDelayMs(rttBetween(t, hallA, hallB));
      if (delayMs > 0) this.mesh.slowLink([from], [to], delayMs, true);
    };
    for (const a of t.members) {
      for (const b of t.members) if (a !== b) slow(a.name, b.name, a.hall, b.hall);
      slow(ARBITER, a.name, t.arbiter.hall, a.hall);
      slow(a.name, ARBITER, a.hall, t.arbiter.hall);
    }
    for (let i = 0; i < t.clients.count; i++) {
      slow(clientName(i), ARBITER, t.clients.hall, t.arbiter.hall);
      slow(ARBITER, clientName(i), t.arbiter.hall, t.clients.hall);
    }
  }

  /** A fresh arbiter on the same port: its etcd client starts again at the topology's first member (as the simulator's runs do). */
  async restartArbiter(): Promise<void> {
    await this.stopArbiter();
    const started = startLockstep(this.arbiterArgs, { ownGroup: true });
    this.arbiter = started;
    await started.waitForStderr(/serving lock\.v1/, SERVE_START_MS);
  }

  private async stopArbiter(): Promise<void> {
    const running = this.arbiter;
    this.arbiter = undefined;
    if (running === undefined) return;
    try {
      process.kill(-running.pid, 'SIGKILL'); // its whole group (ownGroup)
    } catch {
      // gone already
    }
    await running.exited;
  }

  /** etcd's member ID (hex, as etcdctl takes it) -> member name, and the current leader's name. */
  async memberIds(): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    for (const [i, endpoint] of this.memberEndpoints.entries()) {
      const log = createEtcdLockLog({ endpoints: [endpoint], requestTimeoutMs: 5_000 });
      try {
        const status = await log.status();
        ids.set(status.header.memberId.toString(16), this.topology.members[i]!.name);
      } finally {
        await log.close().catch(() => undefined);
      }
    }
    return ids;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.stopArbiter();
    await this.cluster?.stop();
    await this.mesh.close();
    await rm(this.rootDir, { recursive: true, force: true });
    forgetDirectory(this.rootDir);
  }
}
