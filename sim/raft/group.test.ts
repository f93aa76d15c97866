import { describe, expect, it } from 'vitest';
import { Kernel } from '../kernel/kernel.js';
import { RaftGroup } from './group.js';
import { appliedData, memberNames, recordsOf, testWorld } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const world = (seed: string, count: number, config = {}) => testWorld(yieldToHost, seed, count, config);

describe('RaftGroup: elections', () => {
  for (const count of [3, 5]) {
    it(`elects exactly one leader in a ${count}-member group, at term 2 after the bootstrap`, async () => {
      const { kernel, group } = world(`elect-${count}`, count);
      const leader = await group.runUntilLeader(5_000);
      expect(leader).toBeDefined();
      // The startup tick advance (8 of 10 ticks once peers are seen) makes the first election quick.
      expect(kernel.now()).toBeLessThan(1_500);
      await kernel.runFor(3_000);
      expect(group.leaders()).toEqual([leader]);
      for (const name of group.members) {
        expect(group.node(name).status().lead).toBe(leader);
        expect(group.node(name).lead).toBe(leader);
        expect(group.node(name).term).toBe(2);
      }
      // Bootstrap: N conf-change entries at term 1, then the leader's empty entry.
      expect(group.applied(leader!).map((e) => `${e.type}@${e.index}/${e.term}`)).toEqual([
        ...memberNames(count).map((_, i) => `conf-change@${i + 1}/1`),
        `normal@${count + 1}/2`,
      ]);
      expect(group.violations).toEqual([]);
    });
  }

  it('re-elects after the leader crashes, after a randomized election timeout', async () => {
    const { kernel, group } = world('crash-leader', 3);
    const first = (await group.runUntilLeader(5_000))!;
    await kernel.runFor(1_000);
    const crashedAt = kernel.now();
    group.process(first).crash();
    const second = await group.runUntilLeader(5_000);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    // Followers time out after [1.0 s, 2.0 s) without heartbeats, then one vote round trip.
    expect(kernel.now() - crashedAt).toBeGreaterThanOrEqual(1_000);
    expect(kernel.now() - crashedAt).toBeLessThan(2_200);
    expect(group.node(second!).term).toBeGreaterThan(2);
    group.process(first).restart();
    await kernel.runFor(3_000);
    expect(group.leaders()).toEqual([second]);
    expect(group.node(first).status().lead).toBe(second);
    expect(group.violations).toEqual([]);
  });

  it('an isolated leader steps down by CheckQuorum within 1-2 election timeouts; the majority elects another', async () => {
    const { kernel, group } = world('isolate-leader', 3);
    const first = (await group.runUntilLeader(5_000))!;
    await kernel.runFor(1_000);
    const isolatedAt = kernel.now();
    const partition = group.isolate(first);
    const stuck = group.node(first).propose('written to the minority');
    expect(stuck.kind).toBe('appended');
    await kernel.runFor(3_000);
    const stepDowns = recordsOf(kernel, 'raft.step-down', first);
    expect(stepDowns).toHaveLength(1);
    const afterMs = stepDowns[0]!.timeMs - isolatedAt;
    expect(afterMs).toBeGreaterThanOrEqual(1_000 - 100);
    expect(afterMs).toBeLessThanOrEqual(2_000 + 100);
    // Same term, no leader (etcd becomeFollower(r.Term, None)).
    expect(stepDowns[0]!.fields['term']).toBe(2);
    expect(group.node(first).status()).toMatchObject({ role: 'follower', lead: null, term: 2 });
    const second = group.leader();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    group.network.heal(partition);
    await kernel.runFor(2_000);
    expect(group.leaders()).toEqual([second]);
    // The minority's entry was never committed and is overwritten.
    for (const name of group.members) expect(appliedData(group.applied(name))).toEqual([]);
    expect(group.violations).toEqual([]);
  });

  it('PreVote off (3.4): a partitioned follower rejoining with a higher term disrupts the leader', async () => {
    const { kernel, group } = world('prevote-off', 3, { preVote: false });
    const leader = (await group.runUntilLeader(5_000))!;
    await kernel.runFor(1_000);
    const follower = group.members.find((name) => name !== leader)!;
    const term = group.node(leader).term;
    const partition = group.isolate(follower);
    await kernel.runFor(5_000);
    expect(group.node(follower).term).toBeGreaterThan(term + 1);
    expect(group.node(leader).term).toBe(term);
    group.network.heal(partition);
    await kernel.runFor(3_000);
    // The leader heard of the higher term (a MsgAppResp answering its heartbeat) and stepped down.
    expect(recordsOf(kernel, 'raft.term', leader).some((r) => Number(r.fields['term']) > term + 1)).toBe(true);
    const now = group.leader()!;
    expect(group.node(now).term).toBeGreaterThan(term + 1);
    expect(group.violations).toEqual([]);
  });

  it('PreVote on (3.5): the rejoining follower does not disrupt the leader', async () => {
    const { kernel, group } = world('prevote-on', 3, { preVote: true });
    const leader = (await group.runUntilLeader(5_000))!;
    await kernel.runFor(1_000);
    const follower = group.members.find((name) => name !== leader)!;
    const term = group.node(leader).term;
    const partition = group.isolate(follower);
    await kernel.runFor(5_000);
    expect(recordsOf(kernel, 'raft.campaign', follower).length).toBeGreaterThan(1);
    expect(group.node(follower).term).toBe(term);
    group.network.heal(partition);
    await kernel.runFor(3_000);
    expect(group.leaders()).toEqual([leader]);
    for (const name of group.members) expect(group.node(name).term).toBe(term);
    expect(group.node(follower).lead).toBe(leader);
  });

  it('a single member elects itself almost at once (tick advance of electionTicks - 1)', async () => {
    const { kernel, group } = world('single', 1);
    const leader = await group.runUntilLeader(3_000);
    expect(leader).toBe('etcd-1');
    expect(kernel.now()).toBeLessThanOrEqual(1_000);
    expect(group.node('etcd-1').propose('solo')).toMatchObject({ kind: 'appended', index: 3, term: 2 });
    await kernel.runFor(100);
    expect(appliedData(group.applied('etcd-1'))).toEqual(['solo']);
  });
});

describe('RaftGroup: replication, persistence timing and reads', () => {
  async function steadyGroup(seed: string) {
    const w = world(seed, 3);
    const leader = (await w.group.runUntilLeader(5_000))!;
    await w.kernel.runFor(500);
    const followers = w.group.members.filter((name) => name !== leader);
    return { ...w, leader, followers: followers as [string, string] };
  }

  it('commits and applies a proposal on every member in order', async () => {
    const { kernel, group, leader, followers } = await steadyGroup('replicate');
    for (let i = 0; i < 20; i++) group.node(i % 2 === 0 ? leader : followers[0]).propose(`v${i}`);
    await kernel.runFor(1_000);
    for (const name of group.members) expect(appliedData(group.applied(name)).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `v${i}`).sort());
    expect(group.applied(followers[1])).toEqual(group.applied(leader));
  });

  it('commit needs a majority: a leader cut off from both followers commits nothing', async () => {
    const { kernel, group, leader, followers } = await steadyGroup('majority');
    // Cut it off just after a CheckQuorum (every 10 ticks from its election), heal before the next one.
    const electedAtMs = recordsOf(kernel, 'raft.elect', leader)[0]!.timeMs;
    await kernel.runUntil(electedAtMs + 2_050);
    const partition = group.network.partition({ from: [leader], to: followers });
    const proposal = group.node(leader).propose('needs a quorum');
    if (proposal.kind !== 'appended') throw new Error(`expected an append, got ${proposal.kind}`);
    await kernel.runFor(700);
    const status = group.node(leader).status();
    expect(status).toMatchObject({ role: 'leader', lastIndex: proposal.index });
    expect(status.committed).toBeLessThan(proposal.index);
    for (const name of group.members) expect(appliedData(group.applied(name))).toEqual([]);
    group.network.heal(partition);
    await kernel.runFor(200);
    for (const name of group.members) expect(appliedData(group.applied(name))).toEqual(['needs a quorum']);
  });

  it("one follower's disk stalled: commit still happens with the other follower; the stalled one acks later", async () => {
    const { kernel, group, leader, followers } = await steadyGroup('stall-one');
    const [stalled, healthy] = followers;
    group.disk(stalled).stall(kernel.now() + 5_000);
    group.node(leader).propose('x');
    await kernel.runFor(200);
    expect(appliedData(group.applied(leader))).toEqual(['x']);
    expect(appliedData(group.applied(healthy))).toEqual(['x']);
    expect(appliedData(group.applied(stalled))).toEqual([]);
    expect(group.node(stalled).readyLoopBusy).toBe(true);
    await kernel.runFor(5_000);
    expect(appliedData(group.applied(stalled))).toEqual(['x']);
    expect(group.violations).toEqual([]);
  });

  it('two followers stalled: nothing commits until a disk recovers', async () => {
    const { kernel, group, leader, followers } = await steadyGroup('stall-two');
    for (const name of followers) group.disk(name).stall(kernel.now() + 700);
    group.node(leader).propose('x');
    await kernel.runFor(600);
    expect(appliedData(group.applied(leader))).toEqual([]);
    await kernel.runFor(400);
    for (const name of group.members) expect(appliedData(group.applied(name))).toEqual(['x']);
  });

  it("the leader counts itself before its own fsync: its raft commits while its WAL write is stalled", async () => {
    const { kernel, group, leader } = await steadyGroup('stall-leader');
    const wal = group.disk(leader);
    const durableBefore = wal.durableLength;
    wal.stall(kernel.now() + 3_000);
    const proposal = group.node(leader).propose('x');
    await kernel.runFor(300);
    const status = group.node(leader).status();
    expect(proposal.kind === 'appended' && status.committed >= proposal.index).toBe(true);
    expect(wal.durableLength).toBe(durableBefore);
    // The Ready loop is stuck on the fsync: nothing applied yet, and the member still believes it leads.
    expect(group.node(leader).readyLoopBusy).toBe(true);
    expect(group.node(leader).isLeader).toBe(true);
    expect(appliedData(group.applied(leader))).toEqual([]);
  });

  it('ReadIndex: answers with the commit index after a heartbeat round; blocks without a quorum', async () => {
    const reads: string[] = [];
    const w = testWorld(yieldToHost, 'read-index', 3, {}, { onReadState: (member, state) => reads.push(`${member}:${state.requestId}@${state.index}`) });
    const { kernel, group } = w;
    const leader = (await group.runUntilLeader(5_000))!;
    await kernel.runFor(500);
    const follower = group.members.find((name) => name !== leader)!;
    expect(group.node(leader).readIndex('r1')).toEqual({ kind: 'pending' });
    expect(group.node(follower).readIndex('r2')).toEqual({ kind: 'forwarded', leader });
    await kernel.runFor(50);
    const commit = group.node(leader).status().committed;
    expect(reads.sort()).toEqual([`${follower}:r2@${commit}`, `${leader}:r1@${commit}`].sort());
    reads.length = 0;
    const partition = group.network.partition({ from: [leader], to: group.members.filter((name) => name !== leader) });
    expect(group.node(leader).readIndex('r3')).toEqual({ kind: 'pending' });
    await kernel.runFor(900);
    expect(reads).toEqual([]);
    group.network.heal(partition);
    await kernel.runFor(200);
    expect(reads).toEqual([`${leader}:r3@${commit}`]);
  });

  it('ReadIndex is postponed until the new leader commits an entry of its term', async () => {
    const reads: string[] = [];
    const { kernel, group } = testWorld(yieldToHost, 'read-postponed', 3, {}, { onReadState: (_, s) => reads.push(`${s.requestId}@${s.index}`) });
    await kernel.runUntilCondition(() => group.leaders().length === 1 && group.node(group.leaders()[0]!).status().committed === 3);
    const leader = group.leaders()[0]!;
    expect(group.node(leader).readIndex('early')).toEqual({ kind: 'pending' });
    await kernel.runFor(100);
    // Answered only after index 4 (its term's empty entry) committed.
    expect(reads).toEqual(['early@4']);
  });

  it('leader transfer: MsgTimeoutNow makes the transferee campaign past the lease; proposals are dropped meanwhile', async () => {
    const { kernel, group, leader, followers } = await steadyGroup('transfer');
    expect(group.node(leader).transferLeadership(followers[0])).toEqual({ kind: 'started' });
    expect(group.node(leader).propose('during transfer')).toEqual({ kind: 'dropped', reason: 'leader-transfer' });
    await kernel.runFor(200);
    expect(group.leaders()).toEqual([followers[0]]);
    expect(group.node(followers[0]).term).toBe(3);
  });

  it('a paused leader (a stop-the-world pause) is replaced, and steps down when it resumes', async () => {
    const { kernel, group, leader } = await steadyGroup('paused-leader');
    const term = group.node(leader).term;
    group.process(leader).pause();
    await kernel.runFor(3_000);
    const next = group.leaders().find((name) => name !== leader);
    expect(next).toBeDefined();
    // Raft's state is frozen with the process: it still thinks it leads the old term.
    expect(group.node(leader).status()).toMatchObject({ role: 'leader', term });
    group.process(leader).resume();
    await kernel.runFor(100);
    expect(group.leaders()).toEqual([next]);
    expect(group.node(leader).lead).toBe(next);
    expect(group.violations).toEqual([]);
  });

  it('is deterministic: the same seed gives the same trace hash', async () => {
    const run = async (seed: string) => {
      const { kernel, group } = world(seed, 3);
      const leader = (await group.runUntilLeader(5_000))!;
      for (let i = 0; i < 10; i++) group.node(leader).propose(`v${i}`);
      group.isolate(leader);
      await kernel.runFor(4_000);
      return kernel.trace.hash();
    };
    expect(await run('det-1')).toBe(await run('det-1'));
    expect(await run('det-1')).not.toBe(await run('det-2'));
  });

  it("drains exactly: draining after every event gives the same hash (no promise escapes the kernel)", async () => {
    const run = async (drain: 'auto' | 'always') => {
      const kernel = new Kernel({ seed: 'drain', yieldToHost, drain });
      const group = new RaftGroup<string>({ kernel, members: memberNames(3) });
      const leader = (await group.runUntilLeader(5_000))!;
      for (let i = 0; i < 5; i++) group.node(leader).propose(`v${i}`);
      await kernel.runFor(2_000);
      return kernel.trace.hash();
    };
    expect(await run('always')).toBe(await run('auto'));
  });
});
