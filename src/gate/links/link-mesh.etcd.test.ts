// Real etcd 3.4 members whose peer links all run through the gate's proxies (issue 15): isolating the
// leader makes the others elect a new one, the heal brings back one cluster, and a one-way cut of the
// leader's sends does the same. The control: with the mesh passing everything, the leader stays.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEtcdBinary } from '../../testing/etcd-binary.js';
import { waitUntilHealthy } from '../../testing/etcd-health.js';
import { EtcdMemberProcess } from '../../testing/etcd-member-process.js';
import { LOOPBACK_HOST, freePorts } from '../../testing/free-port.js';
import { removeOnExit } from '../../testing/process-reaper.js';
import { LinkMesh } from './link-mesh.js';

const NAMES = ['m1', 'm2', 'm3'];
const mesh = new LinkMesh();
const members: Array<{ name: string; clientUrl: string; process: EtcdMemberProcess }> = [];
let rootDir = '';

beforeAll(async () => {
  const binary = await ensureEtcdBinary();
  rootDir = await mkdtemp(join(tmpdir(), 'lockstep-mesh-'));
  removeOnExit(rootDir);
  const ports = await freePorts(2 * NAMES.length);
  const advertised: string[] = [];
  for (const [i, name] of NAMES.entries()) advertised.push(await mesh.addPeer(name, ports[2 * i + 1] as number));
  const initialCluster = NAMES.map((name, i) => `${name}=${advertised[i]}`).join(',');
  for (const [i, name] of NAMES.entries()) {
    const dataDir = join(rootDir, name);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const clientUrl = `http://${LOOPBACK_HOST}:${ports[2 * i]}`;
    const args = [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=http://${LOOPBACK_HOST}:${ports[2 * i + 1]}`,
      `--initial-advertise-peer-urls=${advertised[i]}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=lockstep-mesh-${process.pid}`,
      '--initial-cluster-state=new',
      '--logger=zap',
    ];
    const member = { name, clientUrl, process: new EtcdMemberProcess(binary, args, join(dataDir, 'etcd.log')) };
    members.push(member);
    member.process.start();
  }
  await waitUntilHealthy(members.map((m) => m.clientUrl), 30_000, () => undefined);
}, 60_000);

afterAll(async () => {
  await Promise.all(members.map((m) => m.process.stop('SIGKILL', 5_000)));
  await mesh.close();
  if (rootDir !== '') await rm(rootDir, { recursive: true, force: true });
});

/** The member a member names as leader, by name; undefined when it knows none or does not answer. */
async function leaderSeenBy(member: (typeof members)[number]): Promise<string | undefined> {
  try {
    const response = await fetch(`${member.clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1_000) });
    const status = (await response.json()) as { header?: { member_id?: string }; leader?: string };
    if (status.leader === undefined || status.leader === '0') return undefined;
    return ids.get(status.leader);
  } catch {
    return undefined;
  }
}

const ids = new Map<string, string>();
async function learnIds(): Promise<void> {
  for (const member of members) {
    const response = await fetch(`${member.clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}' });
    const status = (await response.json()) as { header: { member_id: string } };
    ids.set(status.header.member_id, member.name);
  }
}

async function agreedLeader(among: readonly string[], limitMs: number, not?: string): Promise<string> {
  const startedAt = Date.now();
  for (;;) {
    const seen = await Promise.all(members.filter((m) => among.includes(m.name)).map(leaderSeenBy));
    const first = seen[0];
    if (first !== undefined && first !== not && seen.every((leader) => leader === first)) return first;
    if (Date.now() - startedAt > limitMs) throw new Error(`no agreed leader among ${among.join(', ')} in ${limitMs} ms (seen: ${seen.join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('etcd peer links through the link mesh', () => {
  it('the control: with every link passing, the leader stays the leader', async () => {
    await learnIds();
    const leader = await agreedLeader(NAMES, 10_000);
    await sleep(3_000); // three election timeouts
    expect(await agreedLeader(NAMES, 2_000)).toBe(leader);
  }, 30_000);

  it('isolating the leader makes the others elect a new one; the heal makes one cluster again', async () => {
    const leader = await agreedLeader(NAMES, 10_000);
    const others = NAMES.filter((name) => name !== leader);
    const heal = mesh.partition([leader], others, false);
    const next = await agreedLeader(others, 15_000, leader);
    expect(others).toContain(next);
    heal();
    const after = await agreedLeader(NAMES, 15_000);
    expect(NAMES).toContain(after);
  }, 45_000);

  it("a one-way cut of the leader's sends also brings a new leader", async () => {
    const leader = await agreedLeader(NAMES, 10_000);
    const others = NAMES.filter((name) => name !== leader);
    const heal = mesh.partition([leader], others, true);
    try {
      expect(others).toContain(await agreedLeader(others, 15_000, leader));
    } finally {
      heal();
    }
    await agreedLeader(NAMES, 15_000);
  }, 45_000);
});
