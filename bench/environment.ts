// What the figures were measured on: etcd's version and member count, which member led, the machine's
// cores, and the disk under the data dir. A benchmark number without its environment is not a number
// anyone can use to size hardware.
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename } from 'node:path';
import { createMemberClient, normaliseEndpoint } from '../src/etcd/member-client.js';

export interface DiskInfo {
  /** The directory the fsync probe ran in. */
  readonly dir: string;
  /** The mount point and filesystem type of that directory, from /proc/mounts. */
  readonly mount?: string;
  readonly fsType?: string;
  /** The block device (from /sys/dev/block), and whether the kernel thinks it rotates. */
  readonly device?: string;
  readonly rotational?: boolean;
}

export interface ClusterInfo {
  readonly etcdVersion: string;
  readonly members: number;
  /** Every workload talks to this member (the leader when one answered as such). */
  readonly endpoint: string;
  readonly endpointIsLeader: boolean;
  readonly raftTerm: string;
}

export interface BenchEnvironment extends ClusterInfo {
  readonly local: boolean;
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly nodeVersion: string;
  readonly platform: string;
  readonly disk: DiskInfo;
  readonly startedAt: string;
}

/** Asks each endpoint for its status; returns the cluster's facts and the leader's endpoint. */
export async function probeCluster(endpoints: readonly string[]): Promise<ClusterInfo> {
  const answers: Array<{ endpoint: string; version: string; memberId: string; leader: string; raftTerm: string }> = [];
  let members = endpoints.length;
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const client = createMemberClient(endpoint);
    try {
      const status = await client.maintenance.status({ deadline: new Date(Date.now() + 5_000) });
      answers.push({ endpoint: normaliseEndpoint(endpoint), version: status.version, memberId: status.header.member_id, leader: status.leader, raftTerm: status.raftTerm });
      if (answers.length === 1) members = (await client.cluster.memberList({ linearizable: false }, { deadline: new Date(Date.now() + 5_000) })).members.length;
    } catch (error) {
      problems.push(`${endpoint}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    } finally {
      client.close();
    }
  }
  const first = answers[0];
  if (first === undefined) throw new Error(`no etcd endpoint answered a status request (${problems.join('; ')}); check --endpoints and that etcd is running`);
  const leader = answers.find((a) => a.memberId === a.leader);
  const chosen = leader ?? first;
  return { etcdVersion: chosen.version, members, endpoint: chosen.endpoint, endpointIsLeader: leader !== undefined, raftTerm: chosen.raftTerm };
}

export function describeMachine(): Pick<BenchEnvironment, 'cores' | 'cpuModel' | 'memoryGiB' | 'nodeVersion' | 'platform'> {
  const cpuList = cpus();
  return {
    cores: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    nodeVersion: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Best effort: on anything but Linux, or without /proc and /sys, only `dir` is known. */
export function describeDisk(dir: string): DiskInfo {
  const info: { -readonly [K in keyof DiskInfo]: DiskInfo[K] } = { dir };
  try {
    const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((line) => line.split(' ')).filter((f) => f.length >= 3);
    const containing = mounts.filter(([, point]) => point !== undefined && (dir === point || dir.startsWith(point.endsWith('/') ? point : `${point}/`)));
    const best = containing.sort((a, b) => (b[1]?.length ?? 0) - (a[1]?.length ?? 0))[0];
    if (best !== undefined) {
      info.mount = best[1] as string;
      info.fsType = best[2] as string;
    }
    const dev = statSync(dir).dev;
    const major = Math.floor(dev / 256) & 0xfff;
    const minor = (dev & 0xff) | ((Math.floor(dev / 4096) & 0xfff00) >>> 0);
    const sysPath = readlinkSync(`/sys/dev/block/${major}:${minor}`);
    const device = basename(sysPath);
    info.device = device;
    // A partition's queue lives in its parent disk's directory.
    const disk = sysPath.split('/').slice(-2, -1)[0] ?? device;
    for (const candidate of [device, disk]) {
      try {
        info.rotational = readFileSync(`/sys/block/${candidate}/queue/rotational`, 'utf8').trim() === '1';
        break;
      } catch {
        // not a whole disk; try the parent
      }
    }
  } catch {
    // Not Linux, or no /sys: report what we have.
  }
  return info;
}
