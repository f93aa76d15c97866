// Throwaway real etcd clusters for tests: free loopback ports, data dirs under os.tmpdir(), a unique
// cluster token, zap logs captured per member, and nothing left running when the test process exits.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EtcdClientTls } from '../etcd/etcd-tls.js';
import { ensureEtcdBinary } from './etcd-binary.js';
import { PORT_TAKEN, foreignCluster, waitUntilHealthy } from './etcd-health.js';
import { DEFAULT_LOG_TAIL_LINES, EtcdMemberProcess, readLogTail } from './etcd-member-process.js';
import { LOOPBACK_HOST, freePorts } from './free-port.js';
import { forgetDirectory, removeOnExit } from './process-reaper.js';

export interface StartEtcdClusterOptions {
  readonly members: 1 | 3 | 5;
  /** The etcd server binary; default Debian's (ensureEtcdBinary). `lockstep gate --etcd-binary` gates another version. */
  readonly binary?: string;
  /**
   * The peer URL a member advertises, given its name and real peer port: a proxy in front of the port
   * (the gate's link mesh, src/gate/links) so that every peer link runs through it. Default: the port itself.
   */
  readonly advertisePeer?: (name: string, peerPort: number) => Promise<string>;
  /** Extra flags for every member, e.g. ['--experimental-enable-lease-checkpoint']. */
  readonly extraArgs?: readonly string[];
  /** How long to wait for every member to be healthy. Default 30 s. */
  readonly startTimeoutMs?: number;
  /** Member names are `${namePrefix}0`, `${namePrefix}1`, … Default 'm'. */
  readonly namePrefix?: string;
  /** Serve clients over TLS only (https client URLs), as a production lock etcd does (ADR-06). */
  readonly clientTls?: EtcdServerTls;
}

/** A TLS-only etcd's files, and what the kit's own health probes present to it. */
export interface EtcdServerTls {
  /** etcd's --cert-file and --key-file. */
  readonly certFile: string;
  readonly keyFile: string;
  /** etcd's --trusted-ca-file: the CA of the client certificates it accepts. */
  readonly caFile: string;
  /** --client-cert-auth: refuse a client without a certificate that CA signed. */
  readonly clientCertAuth: boolean;
  /** The kit's probes' credentials (a client certificate when clientCertAuth). */
  readonly probe: EtcdClientTls;
}

export interface EtcdClusterMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  /** etcd's --data-dir; its log is `logFile`, inside it. */
  readonly dataDir: string;
  readonly logFile: string;
  /** The current process id; undefined before the first start. Changes when the member restarts. */
  readonly pid: number | undefined;
  readonly running: boolean;
}

export interface EtcdCluster {
  /** Client URLs, one per member, in member order. */
  readonly endpoints: string[];
  readonly members: readonly EtcdClusterMember[];
  readonly clusterToken: string;
  /** Kills every member and removes the data dirs. Safe to call twice. */
  stop(): Promise<void>;
  /** Sends `signal` (default SIGKILL) to one member and waits for it to exit; its data dir stays. */
  kill(memberIndex: number, signal?: NodeJS.Signals): Promise<void>;
  /** Graceful stop (SIGTERM, SIGKILL after 10 s): a leader hands its leadership over first. */
  stopMember(memberIndex: number): Promise<void>;
  /** Restarts a stopped member on its data dir and ports, and waits until it is healthy. */
  startMember(memberIndex: number): Promise<void>;
  /**
   * Kills one member (SIGKILL) and empties its data dir, keeping only its log; startMember then boots it
   * afresh with the same name, peer URL and cluster token. etcd derives the member ID from the peer URLs
   * and the token, and the cluster ID from the member IDs, so a 1-member cluster comes back with the same
   * cluster ID and its revision back at 1: a restore that keeps the cluster ID (ADR-03). In a 3-member
   * cluster the others still know the member, so wipe every member before starting any of them again.
   */
  wipeMember(memberIndex: number): Promise<void>;
  /** SIGSTOP / SIGCONT: a member that is alive but does nothing (a long GC pause, a stuck disk). */
  pauseMember(memberIndex: number): void;
  resumeMember(memberIndex: number): void;
  /** Waits until every running member knows a leader and serves a linearizable read. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  logTail(memberIndex: number, lines?: number): string;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const START_ATTEMPTS = 3; // a free port can be taken by someone else before etcd binds it

interface MemberState extends EtcdClusterMember {
  readonly process: EtcdMemberProcess;
  /** The peer URL the others dial: the member's own, or its proxy's (advertisePeer). */
  readonly advertisedPeerUrl: string;
}

function memberArgs(name: string, dataDir: string, clientUrl: string, peerUrl: string, advertisedPeerUrl: string, initialCluster: string, token: string): string[] {
  return [
    `--name=${name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${advertisedPeerUrl}`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-token=${token}`,
    '--initial-cluster-state=new',
    '--logger=zap',
  ];
}

function tlsArgs(tls: EtcdServerTls | undefined): string[] {
  if (tls === undefined) return [];
  return [`--cert-file=${tls.certFile}`, `--key-file=${tls.keyFile}`, `--trusted-ca-file=${tls.caFile}`, ...(tls.clientCertAuth ? ['--client-cert-auth'] : [])];
}

async function buildMembers(binary: string, rootDir: string, token: string, options: StartEtcdClusterOptions): Promise<MemberState[]> {
  const count = options.members;
  const ports = await freePorts(2 * count);
  const specs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = `${options.namePrefix ?? 'm'}${i}`;
      const peerPort = ports[2 * i + 1] as number;
      const peerUrl = `http://${LOOPBACK_HOST}:${peerPort}`;
      const advertisedPeerUrl = options.advertisePeer === undefined ? peerUrl : await options.advertisePeer(name, peerPort);
      return { name, clientUrl: `${options.clientTls === undefined ? 'http' : 'https'}://${LOOPBACK_HOST}:${ports[2 * i]}`, peerUrl, advertisedPeerUrl };
    }),
  );
  const initialCluster = specs.map((s) => `${s.name}=${s.advertisedPeerUrl}`).join(',');
  return specs.map((spec) => {
    const dataDir = join(rootDir, spec.name);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // etcd 3.4 wants 0700 on its data dir
    const logFile = join(dataDir, 'etcd.log'); // etcd warns once about the extra file and carries on
    const args = [...memberArgs(spec.name, dataDir, spec.clientUrl, spec.peerUrl, spec.advertisedPeerUrl, initialCluster, token), ...tlsArgs(options.clientTls), ...(options.extraArgs ?? [])];
    const process = new EtcdMemberProcess(binary, args, logFile);
    return {
      ...spec,
      dataDir,
      logFile,
      process,
      get pid() {
        return process.pid;
      },
      get running() {
        return process.running;
      },
    };
  });
}

function deadMemberReport(members: readonly MemberState[]): string | undefined {
  const dead = members.find((m) => m.process.exitReason !== undefined);
  if (dead === undefined) return undefined;
  return `etcd member ${dead.name} exited during startup (${dead.process.exitReason}); log ${dead.logFile} ends with:\n${readLogTail(dead.logFile)}`;
}

/** Throws when a client URL is answered by another cluster's etcd: the member lost its port (a clash). */
async function confirmOwnCluster(members: readonly MemberState[], tls: EtcdClientTls | undefined): Promise<void> {
  const peerUrls = members.map((m) => m.advertisedPeerUrl);
  for (const member of members) {
    const foreign = await foreignCluster(member.clientUrl, peerUrls, tls);
    if (foreign !== undefined) throw new Error(foreign);
  }
}

async function startOnce(binary: string, options: StartEtcdClusterOptions): Promise<{ rootDir: string; members: MemberState[]; token: string }> {
  const rootDir = await mkdtemp(join(tmpdir(), 'lockstep-etcd-'));
  removeOnExit(rootDir);
  const token = `lockstep-test-${randomUUID()}`;
  const members = await buildMembers(binary, rootDir, token, options);
  try {
    for (const member of members) member.process.start();
    await waitUntilHealthy(members.map((m) => m.clientUrl), options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS, () => deadMemberReport(members), options.clientTls?.probe);
    await confirmOwnCluster(members, options.clientTls?.probe);
    return { rootDir, members, token };
  } catch (error) {
    const tails = members.map((m) => `--- ${m.name} (${m.logFile}) ---\n${readLogTail(m.logFile, 20)}`).join('\n');
    await Promise.all(members.map((m) => m.process.stop('SIGKILL', STOP_GRACE_MS)));
    await rm(rootDir, { recursive: true, force: true });
    forgetDirectory(rootDir);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tails}`, { cause: error });
  }
}

/** Starts a fresh cluster and resolves once every member is healthy. Always call stop() (afterAll). */
export async function startEtcdCluster(options: StartEtcdClusterOptions): Promise<EtcdCluster> {
  const binary = options.binary ?? (await ensureEtcdBinary());
  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      const started = await startOnce(binary, options);
      return clusterHandle(started.rootDir, started.members, started.token, options.clientTls?.probe);
    } catch (error) {
      lastError = error;
      if (!['address already in use', PORT_TAKEN].some((phrase) => String(error).includes(phrase))) break;
    }
  }
  throw lastError;
}

function clusterHandle(rootDir: string, members: MemberState[], clusterToken: string, probeTls: EtcdClientTls | undefined): EtcdCluster {
  const member = (index: number): MemberState => {
    const found = members[index];
    if (found === undefined) throw new Error(`no member ${index}: the cluster has ${members.length}`);
    return found;
  };
  let stopped = false;
  return {
    endpoints: members.map((m) => m.clientUrl),
    members,
    clusterToken,
    async stop() {
      if (stopped) return;
      stopped = true;
      // The data is thrown away, so there is nothing to shut down gracefully.
      await Promise.all(members.map((m) => m.process.stop('SIGKILL', STOP_GRACE_MS)));
      await rm(rootDir, { recursive: true, force: true });
      forgetDirectory(rootDir);
    },
    kill: (index, signal = 'SIGKILL') => member(index).process.stop(signal, STOP_GRACE_MS),
    stopMember: (index) => member(index).process.stop('SIGTERM', STOP_GRACE_MS),
    async startMember(index) {
      const target = member(index);
      target.process.start();
      await waitUntilHealthy([target.clientUrl], DEFAULT_START_TIMEOUT_MS, () => deadMemberReport([target]), probeTls);
    },
    async wipeMember(index) {
      const target = member(index);
      await target.process.stop('SIGKILL', STOP_GRACE_MS);
      const entries = await readdir(target.dataDir);
      const wiped = entries.map((entry) => join(target.dataDir, entry)).filter((path) => path !== target.logFile);
      await Promise.all(wiped.map((path) => rm(path, { recursive: true, force: true })));
    },
    pauseMember: (index) => member(index).process.signal('SIGSTOP'),
    resumeMember: (index) => member(index).process.signal('SIGCONT'),
    waitUntilHealthy: (timeoutMs = DEFAULT_START_TIMEOUT_MS) =>
      waitUntilHealthy(members.filter((m) => m.running).map((m) => m.clientUrl), timeoutMs, () => undefined, probeTls),
    logTail: (index, lines = DEFAULT_LOG_TAIL_LINES) => readLogTail(member(index).logFile, lines),
  };
}
