// Real etcd 3.4 members whose peer links all run through the gate's proxies (issue 15): isolating the
// leader makes the others elect a new one, the heal brings back one cluster, and a one-way cut of the
// leader's sends does the same. The control: with the mesh passing everything, the leader stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdCluster, type EtcdClusterMember, startEtcdCluster } from '../../testing/etcd-cluster.js';
import { LinkMesh } from './link-mesh.js';

const NAMES = ['m0', 'm1', 'm2']; // the kit's names for three members
const mesh = new LinkMesh();
let cluster: EtcdCluster | undefined;
let members: readonly EtcdClusterMember[] = [];

// The kit, as the gate starts its cluster (src/gate/real-cluster.ts): it retries a start whose ports were
// taken and checks that each client URL answers for this cluster, not for whoever took a member's port.
beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 3, advertisePeer: (name, peerPort) => mesh.addPeer(name, peerPort) });
  members = cluster.members;
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  await mesh.close();
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
