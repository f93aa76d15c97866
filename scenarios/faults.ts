// Fault schedules as plain data (TigerBeetle: "fault settings are plain data derived from the seed"),
// so a schedule can be saved in a run artifact, shrunk by fast-check and replayed exactly. Times are
// milliseconds after the workload starts. A target may be a process name or a role resolved when the
// fault fires: `@leader` (the etcd member raft says leads) or `@follower` (the first member that does not).
import type { World } from '../sim/world/world.js';

export type Fault =
  | { readonly atMs: number; readonly kind: 'pause' | 'resume' | 'restart'; readonly target: string }
  | { readonly atMs: number; readonly kind: 'crash'; readonly target: string; readonly powerLoss?: boolean }
  | { readonly atMs: number; readonly kind: 'partition'; readonly id: string; readonly from: readonly string[]; readonly to: readonly string[]; readonly oneWay?: boolean }
  | { readonly atMs: number; readonly kind: 'heal'; readonly id: string }
  | { readonly atMs: number; readonly kind: 'stall-disk'; readonly target: string; readonly durationMs: number }
  | { readonly atMs: number; readonly kind: 'clock-drift'; readonly target: string; readonly ppm: number }
  | { readonly atMs: number; readonly kind: 'clock-step'; readonly target: string; readonly deltaMs: number };

/** Schedules `faults` on the world's kernel, relative to now; returns a log of what each resolved to. */
export function scheduleFaults(world: World, faults: readonly Fault[]): string[] {
  const applied: string[] = [];
  const startMs = world.kernel.now();
  const heals = new Map<string, () => void>();
  for (const fault of [...faults].sort((a, b) => a.atMs - b.atMs)) {
    world.kernel.schedule(startMs + fault.atMs, () => {
      const description = applyFault(world, fault, heals);
      applied.push(`${fault.atMs} ms: ${description}`);
      world.kernel.trace.record('fault', { kind: fault.kind, description });
    });
  }
  return applied;
}

function applyFault(world: World, fault: Fault, heals: Map<string, () => void>): string {
  switch (fault.kind) {
    case 'partition': {
      const from = fault.from.map((name) => resolve(world, name));
      const to = fault.to.map((name) => resolve(world, name));
      heals.set(fault.id, world.partition({ from, to, direction: fault.oneWay === true ? 'one-way' : 'both' }));
      return `partition ${fault.id}: ${from.join(',')} ${fault.oneWay === true ? '->' : '<->'} ${to.join(',')}`;
    }
    case 'heal':
      heals.get(fault.id)?.();
      heals.delete(fault.id);
      return `heal ${fault.id}`;
    default:
      break;
  }
  const target = resolve(world, fault.target);
  const member = world.cluster.members.find((m) => m.name === target);
  const process = world.process(target);
  switch (fault.kind) {
    case 'pause':
      if (member !== undefined) world.cluster.pause(target);
      else process.pause();
      return `pause ${target}`;
    case 'resume':
      if (member !== undefined) world.cluster.resume(target);
      else process.resume();
      return `resume ${target}`;
    case 'crash':
      if (member !== undefined) world.cluster.crash(target, { powerLoss: fault.powerLoss === true });
      else process.crash({ powerLoss: fault.powerLoss === true });
      return `crash ${target}${fault.powerLoss === true ? ' (power loss)' : ''}`;
    case 'restart':
      if (member !== undefined) world.cluster.restart(target);
      else process.restart();
      return `restart ${target}`;
    case 'stall-disk':
      world.cluster.stallDisk(target, world.kernel.now() + fault.durationMs);
      return `stall the disk of ${target} for ${fault.durationMs} ms`;
    case 'clock-drift':
      process.setDriftPpm(fault.ppm);
      return `${target}'s clock drifts ${fault.ppm} ppm`;
    case 'clock-step':
      process.stepClock(fault.deltaMs);
      return `${target}'s clock steps ${fault.deltaMs} ms`;
  }
}

/** `@leader` and `@follower` name the members that hold those roles when the fault fires. */
export function resolve(world: World, target: string): string {
  if (target === '@leader') return world.cluster.leader()?.name ?? world.cluster.members[0]?.name ?? target;
  if (target === '@follower') {
    const leader = world.cluster.leader()?.name;
    return world.cluster.members.find((m) => m.name !== leader)?.name ?? target;
  }
  return target;
}
