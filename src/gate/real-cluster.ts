// The real processes of one `lockstep gate` run (issue 15, ADR-23): etcd members whose every peer link
// runs through the gate's link mesh (src/gate/links), `lockstep init` on them, `lockstep serve` arbiters
// whose links to each member run through the mesh too, and client processes (src/gate/client) on the
// arbiters, each reporting its operations to the gate's recorder over IPC. Everything on loopback, in one
// temporary directory, stopped and removed by stop() (also on the gate's exit: src/testing/process-reaper).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEtcdLockLog } from '../etcd/index.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { entryUrl } from '../repo-root.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';
import { forgetDirectory, reapOnExit, removeOnExit } from '../testing/process-reaper.js';
import type { ClientConfig, FromClient, Resource, ToClient } from './client/client-protocol.js';
import { ClockSteps, ensureLibfaketime, rateEnvironment, rateOfDrift } from './faketime/faketime.js';
import type { HistoryRecorder } from './history/recorder.js';
import { LinkMesh } from './links/link-mesh.js';

const CLIENT_ENTRY = entryUrl('src/gate/client/client-worker.ts', new URL('./client/client-entry.mjs', import.meta.url));
export const GATE_CLASS = 'gate';
export const GATE_TTL_SECONDS = 5; // the shortest TTL a class may have (core/classes TTL_MIN_SECONDS): expiries come soon
const NAMESPACE = 'payments';
const SERVE_START_MS = 60_000;
const CLIENT_STOP_MS = 15_000;

export type Role = 'member' | 'arbiter' | 'client';
export type ProcessState = 'running' | 'paused' | 'crashed';

/** A clock given to a process when it starts (libfaketime): a rate (clock-drift), or steps (clock-step). */
export type StartClock = { readonly kind: 'rate'; readonly ppm: number } | { readonly kind: 'steps' };

export interface GateSetup {
  readonly members: 3 | 5;
  readonly arbiters: number;
  readonly clients: number;
  readonly keys: number;
  readonly seed: string;
  readonly resource: Resource;
  readonly etcdBinary?: string;
  /** Processes that start under a clock of their own (from the schedule's clock faults). */
  readonly clocks: ReadonlyMap<string, StartClock>;
}

export interface GateProcess {
  readonly name: string;
  readonly role: Role;
  state: ProcessState;
  pid: number | undefined;
  /** Every pid this process had (restarts), for the leftover check. */
  readonly pids: number[];
  steps?: ClockSteps;
  ratePpm?: number;
}

export const memberNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `etcd-${i}`);
export const arbiterNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `arbiter-${i + 1}`);
export const clientNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `client-${i + 1}`);
export const keyNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `${NAMESPACE}/gate-${i}`);
export const identityOf = (client: string): string => `spiffe://lockstep.gate/ns/${NAMESPACE}/sa/${client}`;
export const clientOfIdentity = (identity: string): string => identity.slice(identity.lastIndexOf('/') + 1);

interface ArbiterRun {
  readonly args: string[];
  readonly env: NodeJS.ProcessEnv;
  run?: LockstepProcess;
}

export class RealCluster {
  readonly processes = new Map<string, GateProcess>();
  readonly mesh = new LinkMesh();
  readonly problems: string[] = [];
  private cluster: EtcdCluster | undefined;
  private readonly arbiterRuns = new Map<string, ArbiterRun>();
  private readonly clientChildren = new Map<string, ChildProcess>();
  private readonly statusLogs = new Map<string, LockLog>();
  private readonly memberIds = new Map<bigint, string>();
  private stopped = false;
  /** The version the members report (etcd's status). */
  etcdVersion = '?';

  private constructor(
    readonly rootDir: string,
    private readonly setup: GateSetup,
  ) {}

  static async start(setup: GateSetup, recorder: HistoryRecorder, say: (line: string) => void): Promise<RealCluster> {
    const rootDir = await mkdtemp(join(tmpdir(), 'lockstep-gate-'));
    removeOnExit(rootDir);
    const real = new RealCluster(rootDir, setup);
    try {
      await real.boot(recorder, say);
      return real;
    } catch (error) {
      await real.stop();
      throw error;
    }
  }

  get memberEndpoints(): string[] {
    return this.cluster?.endpoints ?? [];
  }

  /** Every pid any process of this run had, etcd's included. */
  allPids(): number[] {
    return [...this.processes.values()].flatMap((p) => p.pids);
  }

  names(role: Role): string[] {
    return [...this.processes.values()].filter((p) => p.role === role).map((p) => p.name);
  }

  private async boot(recorder: HistoryRecorder, say: (line: string) => void): Promise<void> {
    const { setup } = this;
    const library = setup.clocks.size > 0 ? await ensureLibfaketime() : undefined;
    say(`starting ${setup.members} etcd members${setup.etcdBinary === undefined ? '' : ` (${setup.etcdBinary})`}`);
    this.cluster = await startEtcdCluster({ members: setup.members, namePrefix: 'etcd-', startTimeoutMs: 60_000, ...(setup.etcdBinary === undefined ? {} : { binary: setup.etcdBinary }), advertisePeer: (name, port) => this.mesh.addPeer(name, port) });
    for (const member of this.cluster.members) this.track(member.name, 'member', member.pid);
    for (const member of this.cluster.members) this.statusLogs.set(member.name, createEtcdLockLog({ endpoints: [member.clientUrl], requestTimeoutMs: 700 }));
    await this.learnMemberIds();
    const endpoints = this.cluster.endpoints.map((url) => url.replace('http://', '')).join(',');
    const init = await runLockstep(['init', '--endpoints', endpoints]);
    if (init.code !== 0) throw new Error(`lockstep init --endpoints ${endpoints} exited ${init.code}: ${init.stderr.trim()}`);

    const classes = join(this.rootDir, 'classes');
    const grants = join(this.rootDir, 'grants');
    const resourceDir = join(this.rootDir, 'resource');
    for (const dir of [classes, grants, resourceDir]) mkdirSync(dir, { recursive: true });
    await writeFencedClass(classes, GATE_CLASS, GATE_TTL_SECONDS);
    const clients = clientNames(setup.clients);
    const grantDocs = clients.map((name) => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: ${NAMESPACE} }`, `spec: { identity: "${identityOf(name)}", prefixes: [${NAMESPACE}/] }`].join('\n'));
    writeFileSync(join(grants, 'grants.yaml'), `${grantDocs.join('\n---\n')}\n`);

    const arbiters = arbiterNames(setup.arbiters);
    const ports = await freePorts(arbiters.length);
    say(`starting ${arbiters.length} lockstep serve arbiters`);
    await Promise.all(
      arbiters.map(async (name, i) => {
        const links: string[] = [];
        for (const member of this.cluster?.members ?? []) links.push(await this.mesh.addClientLink(name, member.name, Number(new URL(member.clientUrl).port)));
        const env = { ...process.env, ...this.clockEnv(name, library) };
        const run: ArbiterRun = { args: ['serve', '--endpoints', links.join(','), '--classes', classes, '--grants', grants, '--listen', `127.0.0.1:${ports[i]}`], env };
        this.arbiterRuns.set(name, run);
        this.track(name, 'arbiter', undefined);
        await this.startArbiter(name);
      }),
    );
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    say(`starting ${clients.length} clients on ${setup.keys} keys`);
    for (const name of clients) {
      const dial: string[] = [];
      for (const [i, arbiter] of arbiters.entries()) dial.push(await this.mesh.addClientLink(name, arbiter, ports[i] as number));
      const config: ClientConfig = {
        name, identity: identityOf(name), arbiters: addresses, dial, className: GATE_CLASS, ttlSeconds: GATE_TTL_SECONDS, keys: keyNames(setup.keys),
        seed: `${setup.seed}/${name}`, resource: setup.resource, resourceDir, waitMs: 4_000, unitsPerHold: 3, workMs: [100, 500],
      };
      this.startClient(config, recorder, this.clockEnv(name, library));
    }
  }

  private clockEnv(name: string, library: string | undefined): Record<string, string> {
    const clock = this.setup.clocks.get(name);
    if (clock === undefined || library === undefined) return {};
    if (clock.kind === 'rate') return rateEnvironment(library, rateOfDrift(clock.ppm));
    const steps = new ClockSteps(join(this.rootDir, `${name}.faketime`));
    this.pendingSteps.set(name, steps);
    return steps.environment(library);
  }

  private readonly pendingSteps = new Map<string, ClockSteps>();

  private track(name: string, role: Role, pid: number | undefined): GateProcess {
    const known = this.processes.get(name);
    if (known !== undefined) {
      known.pid = pid;
      if (pid !== undefined) known.pids.push(pid);
      known.state = 'running';
      return known;
    }
    const tracked: GateProcess = { name, role, state: 'running', pid, pids: pid === undefined ? [] : [pid] };
    const steps = this.pendingSteps.get(name);
    if (steps !== undefined) tracked.steps = steps;
    const clock = this.setup.clocks.get(name);
    if (clock?.kind === 'rate') tracked.ratePpm = clock.ppm;
    this.processes.set(name, tracked);
    return tracked;
  }

  /**
   * Starts `name`'s serve and waits until it serves: true. False when the gate itself crashed it meanwhile
   * (the schedule's next crash came while a slow start went on): a crash, not a failed start (issue 32).
   */
  private async startArbiter(name: string): Promise<boolean> {
    const run = this.arbiterRuns.get(name) as ArbiterRun;
    const started = startLockstep(run.args, { env: run.env, ownGroup: true });
    run.run = started;
    this.track(name, 'arbiter', started.pid);
    void started.exited.then(({ code, signal }) => {
      const tracked = this.processes.get(name);
      if (!this.stopped && run.run === started && tracked !== undefined && tracked.state !== 'crashed') {
        tracked.state = 'crashed';
        this.problems.push(`${name} (lockstep serve) exited on its own: ${signal ?? `exit code ${code}`}; stderr ends: ${started.stderr().trim().split('\n').slice(-3).join(' | ')}`);
      }
    });
    try {
      await started.waitForStderr(/serving lock\.v1/, SERVE_START_MS);
      return true;
    } catch (error) {
      if (this.crashedByGate.has(started.pid)) {
        // Said, not failed: the simulator restarts at once, so a comparison should know the start overlapped the next crash.
        this.problems.push(`${name} was crashed again before its restart served: a start took longer than the schedule's recovery`);
        return false;
      }
      throw error;
    }
  }

  /**
   * Each arbiter restart's start-up, in order: ms from the restart to serving behind its proxies, or null when
   * it never served (crashed first). The prediction replays them (scenarios/start-up-target.ts, issue 32).
   */
  readonly startUpsMs = new Map<string, (number | null)[]>();

  private recordStartUp(name: string, ms: number | null): void {
    this.startUpsMs.set(name, [...(this.startUpsMs.get(name) ?? []), ms]);
  }

  /** The pids the gate killed on purpose (crash()), so a start cut short by one is told from a failed start. */
  private readonly crashedByGate = new Set<number>();

  private startClient(config: ClientConfig, recorder: HistoryRecorder, clockEnv: Record<string, string>): void {
    const child = fork(CLIENT_ENTRY, [], { detached: true, execArgv: [], env: { ...process.env, ...clockEnv }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    if (child.pid === undefined) throw new Error(`could not start ${config.name}`);
    reapOnExit(child);
    this.clientChildren.set(config.name, child);
    this.track(config.name, 'client', child.pid);
    let output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString('utf8')).slice(-2_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('message', (message: FromClient) => {
      try {
        if (message.t === 'invoke') {
          recorder.invoke(config.name, message.f, message.key, message.value);
          child.send({ t: 'ack', id: message.id } satisfies ToClient);
        } else if (message.t === 'done') recorder.complete(config.name, message.type, message.value);
        else if (message.t === 'fence') recorder.fence(config.name, message.key, message.token);
        else if (message.t === 'failed') this.problems.push(`${config.name} failed: ${message.message.split('\n').slice(0, 3).join(' | ')}`);
      } catch (error) {
        this.problems.push(`${config.name}: ${(error as Error).message}`);
      }
    });
    child.once('exit', (code, signal) => {
      const tracked = this.processes.get(config.name);
      if (!this.stopped && tracked !== undefined && tracked.state !== 'crashed' && !this.stoppingClients) {
        tracked.state = 'crashed';
        this.problems.push(`${config.name} exited on its own: ${signal ?? `exit code ${code}`}${output.trim() === '' ? '' : `; output ends: ${output.trim().split('\n').slice(-3).join(' | ')}`}`);
      }
    });
    child.send({ t: 'start', config } satisfies ToClient);
  }

  private stoppingClients = false;

  /** The member raft says leads, asked of every running member that answers; undefined when none knows one. */
  async leader(): Promise<string | undefined> {
    const answers = await Promise.all(
      [...this.statusLogs].filter(([name]) => this.processes.get(name)?.state === 'running').map(([, log]) => log.status().then((s) => s.leader, () => 0n)),
    );
    for (const id of answers) {
      const name = this.memberIds.get(id);
      if (id !== 0n && name !== undefined) return name;
    }
    return undefined;
  }

  private async learnMemberIds(): Promise<void> {
    for (const [name, log] of this.statusLogs) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const status = await log.status().catch(() => undefined);
        if (status !== undefined) {
          this.memberIds.set(status.header.memberId, name);
          this.etcdVersion = status.version;
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private memberIndex(name: string): number {
    return (this.cluster?.members ?? []).findIndex((m) => m.name === name);
  }

  signal(name: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
    const tracked = this.required(name);
    if (tracked.role === 'member') {
      if (signal === 'SIGSTOP') this.cluster?.pauseMember(this.memberIndex(name));
      else this.cluster?.resumeMember(this.memberIndex(name));
    } else if (tracked.pid !== undefined) {
      try {
        process.kill(tracked.pid, signal);
      } catch {
        // gone already
      }
    }
    tracked.state = signal === 'SIGSTOP' ? 'paused' : 'running';
  }

  async crash(name: string): Promise<void> {
    const tracked = this.required(name);
    tracked.state = 'crashed';
    if (tracked.role === 'member') {
      await this.cluster?.kill(this.memberIndex(name), 'SIGKILL');
      await this.mesh.targetDown(name); // its dialers see resets and refused connects, as a dead host's would
      return;
    }
    const child = tracked.role === 'arbiter' ? this.arbiterRuns.get(name)?.run?.child : this.clientChildren.get(name);
    if (child?.pid !== undefined) this.crashedByGate.add(child.pid);
    child?.kill('SIGKILL');
    if (child !== undefined && child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    await this.mesh.targetDown(name); // the clients' connections to a dead arbiter reset, and connects are refused
  }

  async restart(name: string): Promise<void> {
    const tracked = this.required(name);
    if (tracked.role === 'member') {
      const index = this.memberIndex(name);
      // Healthy is not awaited: a restarted member catches up on its own, and the schedule goes on.
      const member = this.cluster?.members[index];
      tracked.state = 'running'; // at once: a dispatcher reads the state right after the call (scenarios/fault-target.ts)
      await this.mesh.targetUp(name);
      void this.cluster?.startMember(index).catch((error: unknown) => this.problems.push(`${name} did not come back healthy: ${(error as Error).message.split('\n')[0]}`));
      this.track(name, 'member', member?.pid);
      return;
    }
    if (tracked.role === 'arbiter') {
      this.track(name, 'arbiter', undefined);
      // Issue 32: the proxies in front of it listen again only once it serves. Up before, they accepted
      // the clients' connects and reset them (nothing listened behind): a call sent, then lost, is
      // `indeterminate`, never failed over, and a client's loop made ~20 unknown outcomes a second for
      // the whole start (seconds under load). Down, a connect is refused, as a real restarting host's:
      // `unavailable`, nothing sent, and the client asks the other arbiter.
      const startedMs = performance.now();
      const served = await this.startArbiter(name).catch((error: unknown) => {
        this.recordStartUp(name, null);
        throw error;
      });
      if (served && tracked.state === 'running') await this.mesh.targetUp(name);
      this.recordStartUp(name, served && tracked.state === 'running' ? performance.now() - startedMs : null);
      return;
    }
    throw new Error(`${name}: a client is not restarted (its history would need a new process name)`);
  }

  private required(name: string): GateProcess {
    const tracked = this.processes.get(name);
    if (tracked === undefined) throw new Error(`no process ${name} in this gate run`);
    return tracked;
  }

  /** Resumes every paused process (the workload's end: everything gets to finish). */
  resumeAll(): void {
    for (const tracked of this.processes.values()) if (tracked.state === 'paused') this.signal(tracked.name, 'SIGCONT');
  }

  /** Asks every client to stop after its current operation; kills the ones still running after the limit. */
  async stopClients(): Promise<void> {
    this.stoppingClients = true;
    const exits = [...this.clientChildren].map(([name, child]) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (child.connected) child.send({ t: 'stop' } satisfies ToClient);
      const timer = setTimeout(() => {
        this.problems.push(`${name} did not stop within ${CLIENT_STOP_MS / 1000} s of being asked; killed`);
        child.kill('SIGKILL');
      }, CLIENT_STOP_MS);
      return exited.finally(() => clearTimeout(timer));
    });
    await Promise.all(exits);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const child of this.clientChildren.values()) {
      try {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      } catch {
        // gone
      }
    }
    await Promise.all(
      [...this.arbiterRuns.values()].map(async (run) => {
        if (run.run === undefined) return;
        try {
          run.run.child.kill('SIGCONT');
        } catch {
          // gone
        }
        run.run.child.kill('SIGKILL');
        await run.run.exited;
      }),
    );
    await Promise.all([...this.statusLogs.values()].map((log) => log.close().catch(() => undefined)));
    await this.cluster?.stop();
    await this.mesh.close();
    await rm(this.rootDir, { recursive: true, force: true });
    forgetDirectory(this.rootDir);
  }
}
