// Fault schedules as plain data (TigerBeetle: "fault settings are plain data derived from the seed"),
// so a schedule can be saved in a run artifact, shrunk by fast-check and replayed exactly. Times are
// milliseconds after the workload starts. A target may be a process name or a role resolved when the
// fault fires: `@leader` (the etcd member raft says leads), `@follower` (the first member that does not),
// `@member-N` (the Nth member of the current cluster, whatever a restore renamed it to) or `@holder` (a
// running client that holds a lock, the first in the order clients were added: what a nemesis aimed at
// a lock service targets, as Jepsen's aims at a primary). A fault that does not apply when it fires (resume a process
// that is not paused, restart one that is running, no holder) is skipped and logged, so any subset of a
// schedule is a valid schedule: the explorer shrinks by removing.
import { formatMs } from '../core/numbers.js';
import { EPOCH_KEY, parseEpochRecord } from '../core/arbiter/records.js';
import type { EtcdSnapshot } from '../sim/cluster/snapshot.js';
import type { World } from '../sim/world/world.js';
import { advanceEpochByTwo } from '../core/arbiter/two-person.js';
import { SIM_OPERATORS, SIM_OPERATOR_CALLERS } from '../sim/world/operators.js';
import { type FaultLog, type OtherFault, resolveProcess, scheduleTargetFaults } from './apply-target-fault.js';
import { SimFaultTarget, holdsInLog, resolveTarget, slowLinks } from './sim-fault-target.js';

/** The two operators of an `advance-epoch` fault (ADR-03: two different people approve). */
export const FAULT_APPROVERS = SIM_OPERATORS;

export type Fault =
  /** With `forMs`, a pause resumes the very process it stopped (a role is resolved once). */
  | { readonly atMs: number; readonly kind: 'pause'; readonly target: string; readonly forMs?: number }
  | { readonly atMs: number; readonly kind: 'resume' | 'restart'; readonly target: string }
  | { readonly atMs: number; readonly kind: 'crash'; readonly target: string; readonly powerLoss?: boolean }
  | { readonly atMs: number; readonly kind: 'partition'; readonly id: string; readonly from: readonly string[]; readonly to: readonly string[]; readonly oneWay?: boolean }
  | { readonly atMs: number; readonly kind: 'heal'; readonly id: string }
  | { readonly atMs: number; readonly kind: 'stall-disk'; readonly target: string; readonly durationMs: number }
  | { readonly atMs: number; readonly kind: 'clock-drift'; readonly target: string; readonly ppm: number }
  /**
   * The target's wall clock jumps by `deltaMs` (an NTP step, libfaketime's offset): no timer or deadline of
   * the lock service moves, as none runs on it (ADR-12). `clock: 'monotonic'` jumps the clock they do run
   * on instead, a fault no real kernel makes (the simulator's alone: a real process refuses it).
   */
  | { readonly atMs: number; readonly kind: 'clock-step'; readonly target: string; readonly deltaMs: number; readonly clock?: 'wall' | 'monotonic' }
  /**
   * Adds `extraDelayMs` to every message from `from` to `to` (and back unless one-way) on every network
   * until healed by id. Not between etcd members: their links carry the cluster's own peer-link setting.
   */
  | { readonly atMs: number; readonly kind: 'slow-link'; readonly id: string; readonly from: readonly string[]; readonly to: readonly string[]; readonly extraDelayMs: number; readonly oneWay?: boolean }
  /**
   * A gray failure of one process (a garbage-collection spiral, a swapping host): its links to the lock
   * service (a client's to the arbiters, an arbiter's to the etcd members) slow by `extraDelayMs`;
   * `freezeAfterMs` later it freezes for `freezeForMs` (a client at its next moment of holding a lock,
   * within 10 s: the collector stops a process mid-work); its links stay slow `recoverMs` after it wakes.
   */
  | { readonly atMs: number; readonly kind: 'brownout'; readonly target: string; readonly extraDelayMs: number; readonly freezeAfterMs: number; readonly freezeForMs: number; readonly recoverMs: number }
  /**
   * The watches of arbiter `target` stay open and deliver nothing for `forMs` (a stalled or lossy stream
   * across many rounds): its waiters are carried by ADR-15's poll fallback alone. Needs a world with log
   * faults (WorldOptions.logFaults); skipped in one without.
   */
  | { readonly atMs: number; readonly kind: 'lossy-watch'; readonly target: string; readonly forMs: number }
  /**
   * For `forMs`, one writing txn in `everyNth` of arbiter `target` commits and its answer is lost: the
   * arbiter is told `timeout` (indeterminate) `timeoutMs` later. Grants, releases and durable places in doubt.
   */
  | { readonly atMs: number; readonly kind: 'lose-answers'; readonly target: string; readonly forMs: number; readonly everyNth: number; readonly timeoutMs: number }
  /**
   * Etcd member `target` is stuck, not crashed, for `forMs`: it takes connections and requests and answers
   * none of them (its answers to the arbiters are cut one way); raft between the members goes on.
   */
  | { readonly atMs: number; readonly kind: 'stuck-member'; readonly target: string; readonly forMs: number }
  /** Two operators advance the epoch through arbiter process `via` (ADR-03): every hold is deleted. */
  | { readonly atMs: number; readonly kind: 'advance-epoch'; readonly via: string }
  /**
   * etcdctl snapshot restore (ADR-03): a snapshot is taken at `snapshotAtMs` (from the leader), and at
   * `atMs` the cluster is restored from it with `clusterToken` (a new token: a new cluster ID). The
   * arbiters reconnect with their memory, or (`restart`) are stopped for the restore and started after
   * it. The epoch advance that reopens them is another fault. With `ifEpochUnchanged` the operators
   * restore only a backup of the current epoch: until epochs come from the coord cluster (ADR-03), a
   * backup older than the last epoch advance, restored under stopped arbiters, brings an epoch back.
   */
  | { readonly atMs: number; readonly kind: 'restore'; readonly snapshotAtMs: number; readonly clusterToken: string; readonly arbiters?: 'reconnect' | 'restart'; readonly ifEpochUnchanged?: boolean };

type Log = FaultLog;

/** How long a browned-out client may go without a lock before it freezes anyway. */
const BROWNOUT_HOLD_WAIT_MS = 10_000;
const BROWNOUT_POLL_MS = 50;

interface Backup {
  readonly snapshot: EtcdSnapshot;
  readonly epoch: number;
}

export interface FaultOptions {
  /**
   * Whether a client process holds a lock as its workload knows it (it has the grant and has not
   * released): `@holder` and a browned-out client's freeze use it. Default: an open hold in the log,
   * which counts a grant whose answer is still on its way, and a hold whose release is.
   */
  readonly holding?: (client: string) => boolean;
}

/**
 * Schedules `faults` on the world's kernel, relative to now; returns a log of what each resolved to. The kinds
 * a real cluster can take too go through the shared rules (apply-target-fault.ts) over the world as a
 * FaultTarget (sim-fault-target.ts); the simulator's own kinds are applied here.
 */
export function scheduleFaults(world: World, faults: readonly Fault[], options: FaultOptions = {}): string[] {
  const holding = options.holding ?? ((client: string) => holdsInLog(world, client));
  const target = new SimFaultTarget(world, { holding });
  const backups = new Map<Fault, Backup | undefined>();
  for (const fault of faults) {
    if (fault.kind === 'restore') world.kernel.schedule(target.startMs + Math.min(fault.snapshotAtMs, fault.atMs), () => backups.set(fault, backup(world)));
  }
  return scheduleTargetFaults(target, faults, {
    applyOther: (fault, _heals, later) => (fault.kind === 'restore' ? restore(world, fault, backups.get(fault)) : applySimFault(world, target, fault, later, holding)),
    onLog: (fault, description) => world.kernel.trace.record('fault', { kind: fault.kind, description }),
  });
}

/** The simulator's own kinds (not `restore`, applied above): a real cluster has no such seam. */
function applySimFault(world: World, simTarget: SimFaultTarget, fault: Exclude<OtherFault, { kind: 'restore' }>, later: Log, holding: (client: string) => boolean): string {
  if (fault.kind === 'advance-epoch') return advanceEpochFault(world, fault.via, later);
  const resolved = resolveProcess(simTarget, fault.kind, fault.target);
  if ('skip' in resolved) return resolved.skip;
  const target = resolved.name;
  switch (fault.kind) {
    case 'brownout':
      return brownout(world, fault, target, later, holding);
    case 'lossy-watch':
    case 'lose-answers':
      return logFault(world, fault, target, later);
    case 'stuck-member': {
      if (!world.cluster.members.some((m) => m.name === target)) return `skip: stuck-member ${target} (not a member of the current cluster)`;
      const clients = world.arbiters.map((a) => a.process.name);
      const heal = world.clusterNetwork.partition({ from: [target], to: clients, direction: 'one-way' });
      world.kernel.scheduleAfter(fault.forMs, () => {
        world.clusterNetwork.heal(heal);
        later(`${target} answers again`);
      });
      return `${target} is stuck for ${formatMs(fault.forMs)}: it takes requests from ${clients.join(',')} and answers none`;
    }
  }
}

/** Switches an arbiter's log faults (sim/world/log-faults.ts) on for the fault's span. */
function logFault(world: World, fault: Extract<Fault, { kind: 'lossy-watch' | 'lose-answers' }>, target: string, later: Log): string {
  const faults = world.logFaultsOf(target);
  if (faults === undefined) return `skip: ${fault.kind} ${target} (not an arbiter of a world with log faults)`;
  if (fault.kind === 'lossy-watch') faults.dropWatchEvents = true;
  else {
    faults.loseEveryNth = fault.everyNth;
    faults.answerTimeoutMs = fault.timeoutMs;
  }
  world.kernel.scheduleAfter(fault.forMs, () => {
    if (fault.kind === 'lossy-watch') faults.dropWatchEvents = false;
    else faults.loseEveryNth = 0;
    later(`${target}'s ${fault.kind === 'lossy-watch' ? 'watches deliver again' : 'answers arrive again'}`);
  });
  if (fault.kind === 'lossy-watch') return `${target}'s watches lose every event for ${formatMs(fault.forMs)}`;
  const share = fault.everyNth === 1 ? 'every committed write' : `one committed write in ${fault.everyNth}`;
  return `${target} loses the answer of ${share} for ${formatMs(fault.forMs)} (told timeout after ${formatMs(fault.timeoutMs)})`;
}

function brownout(world: World, fault: Extract<Fault, { kind: 'brownout' }>, target: string, later: Log, holding: (client: string) => boolean): string {
  const isArbiter = world.arbiters.some((a) => a.process.name === target);
  const peers = isArbiter ? world.cluster.members.map((m) => m.name) : world.arbiters.map((a) => a.process.name);
  const heal = slowLinks(world, [target], peers, fault.extraDelayMs, false);
  const process = world.process(target);
  const client = world.clients.find((c) => c.process.name === target);
  const freeze = (waitedMs: number): void => {
    if (process.state !== 'running') return later(`skip: freeze ${target} (it is ${process.state})`);
    const holds = client === undefined || holding(target);
    if (!holds && waitedMs < BROWNOUT_HOLD_WAIT_MS) {
      world.kernel.scheduleAfter(BROWNOUT_POLL_MS, () => freeze(waitedMs + BROWNOUT_POLL_MS));
      return;
    }
    process.pause();
    later(`freeze ${target} for ${formatMs(fault.freezeForMs)}${client === undefined ? '' : holds ? ' (holding a lock)' : ' (holding nothing)'}`);
    world.kernel.scheduleAfter(fault.freezeForMs, () => {
      later(process.state === 'paused' ? (process.resume(), `wake ${target}`) : `skip: wake ${target} (it is ${process.state})`);
      world.kernel.scheduleAfter(fault.recoverMs, () => {
        heal();
        later(`${target}'s links recover`);
      });
    });
  };
  world.kernel.scheduleAfter(fault.freezeAfterMs, () => freeze(0));
  return `brownout of ${target}${fault.target === target ? '' : ` (${fault.target})`}: links to ${peers.join(',')} +${formatMs(fault.extraDelayMs)}`;
}

/** A snapshot from a member that answers (not paused, not down): the leader if it does. */
function backup(world: World): Backup | undefined {
  const answers = (m: { readonly running: boolean; readonly process: { readonly state: string } }): boolean => m.running && m.process.state === 'running';
  const leader = world.cluster.leader();
  const from = leader !== undefined && answers(leader) ? leader : world.cluster.members.find(answers);
  return from === undefined ? undefined : { snapshot: world.cluster.snapshot(from.name), epoch: epochOf(from) };
}

function restore(world: World, fault: Extract<Fault, { kind: 'restore' }>, backup: Backup | undefined): string {
  if (backup === undefined) return `skip: restore (no member was running to take the snapshot at ${formatMs(fault.snapshotAtMs)})`;
  const { snapshot } = backup;
  if (fault.ifEpochUnchanged === true) {
    const current = Math.max(-1, ...world.cluster.members.map(epochOf));
    if (current !== backup.epoch) return `skip: restore (the backup of ${formatMs(fault.snapshotAtMs)} is of epoch ${backup.epoch}, the log is at ${current < 0 ? 'an unknown epoch' : `epoch ${current}`})`;
  }
  const arbiters = fault.arbiters ?? 'reconnect';
  world.restoreCluster({ snapshot, clusterToken: fault.clusterToken, arbiters });
  return `restore the cluster from the snapshot of ${formatMs(fault.snapshotAtMs)} (revision ${snapshot.revision}) with cluster token ${fault.clusterToken}, arbiters ${arbiters === 'restart' ? 'stopped and started again' : 'reconnected'}`;
}

/** The epoch in a member's applied state (-1 when it has none: down, or not started). */
function epochOf(member: { readonly state: { readonly store: { latest(key: string): { readonly value: string } | undefined } } | undefined }): number {
  const kv = member.state?.store.latest(EPOCH_KEY);
  return kv === undefined ? (member.state === undefined ? -1 : 0) : (parseEpochRecord(kv.value)?.epoch ?? 0);
}

/** The operators' call reaches the arbiter only while it runs; its answer is logged when it comes. */
function advanceEpochFault(world: World, via: string, later: Log): string {
  const node = world.arbiters.find((a) => a.process.name === via);
  if (node === undefined) return `skip: advance the epoch via ${via} (no such arbiter)`;
  if (node.process.state !== 'running') return `skip: advance the epoch via ${via} (it is ${node.process.state})`;
  advanceEpochByTwo(node.arbiter, SIM_OPERATOR_CALLERS, 'an epoch advance from the fault schedule').then(
    (done) => later(`epoch advanced to ${done.epoch} via ${via}, ${done.holdsDeleted} holds deleted`),
    (error: unknown) => later(`epoch advance via ${via} failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  return `advance the epoch via ${via}`;
}

/** The process a target names now; '' for a role nobody holds (`@holder` with no running holder). */
export function resolve(world: World, target: string): string {
  return resolveTarget(world, target, (client) => holdsInLog(world, client));
}
