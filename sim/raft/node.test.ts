import { describe, expect, it } from 'vitest';
import { Disk } from '../disk/disk.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { raftConfig } from './config.js';
import type { RaftMessage } from './message.js';
import { RaftNode } from './node.js';
import { appliedData, recordsOf, testWorld } from './test-world.js';
import type { WalRecord } from './wal.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const FSYNC_MS = 20;
const LINK_MS = 1;

/** Constant latencies, so the order of sends and fsyncs can be read off the trace exactly. */
async function steady(seed: string) {
  const { kernel, group } = testWorld(yieldToHost, seed, 3, {}, {
    fsyncLatency: { kind: 'constant', ms: FSYNC_MS },
    link: { latency: { kind: 'constant', ms: LINK_MS }, ordered: true },
  });
  const leader = (await group.runUntilLeader(5_000))!;
  await kernel.runFor(500);
  const followers = group.members.filter((name) => name !== leader) as [string, string];
  return { kernel, group, leader, followers };
}

const sendsOf = (kernel: Kernel, process: string, type: string) =>
  recordsOf(kernel, 'raft.send', process).filter((r) => r.fields['type'] === type);

describe('RaftNode: the Ready loop', () => {
  it('the leader sends MsgApp before its own fsync; a follower acks only after its fsync', async () => {
    const { kernel, group, leader, followers } = await steady('order');
    const proposedAtMs = kernel.now();
    group.node(leader).propose('x');
    await kernel.runFor(200);
    const appSent = sendsOf(kernel, leader, 'MsgApp').find((r) => r.timeMs >= proposedAtMs && Number(r.fields['entries']) > 0)!;
    expect(appSent.timeMs).toBe(proposedAtMs);
    const leaderSynced = recordsOf(kernel, 'disk.fsync.done', leader).find((r) => r.timeMs > proposedAtMs)!;
    expect(leaderSynced.timeMs).toBeCloseTo(proposedAtMs + FSYNC_MS, 6);
    const follower = followers[0];
    const ack = sendsOf(kernel, follower, 'MsgAppResp').find((r) => r.timeMs > proposedAtMs)!;
    expect(ack.timeMs).toBeCloseTo(proposedAtMs + LINK_MS + FSYNC_MS, 6);
    // Commit after the first ack; apply at the leader in the Ready after its own fsync.
    const applied = recordsOf(kernel, 'raft.apply', leader).find((r) => r.timeMs > proposedAtMs)!;
    expect(applied.timeMs).toBeCloseTo(proposedAtMs + FSYNC_MS + 2 * LINK_MS, 6);
  });

  it('batches what arrives during a Ready into the next one: one fsync per Ready', async () => {
    const { kernel, group, leader } = await steady('batching');
    const node = group.node(leader);
    const fsyncsBefore = node.fsyncs;
    node.propose('first');
    expect(node.readyLoopBusy).toBe(true);
    for (let i = 0; i < 30; i++) node.propose(`batched-${i}`);
    await kernel.runFor(FSYNC_MS + 1);
    // The 30 proposals went into the second Ready: two fsyncs for 31 entries.
    expect(node.fsyncs - fsyncsBefore).toBe(2);
    await kernel.runFor(200);
    expect(appliedData(group.applied(leader))).toHaveLength(31);
  });

  it('holds ticks while an fsync is stuck: a follower with a stalled disk does not campaign', async () => {
    const { kernel, group, leader, followers } = await steady('held-ticks');
    const [stalled] = followers;
    group.disk(stalled).stall(kernel.now() + 6_000);
    group.node(leader).propose('x');
    await kernel.runFor(100);
    group.process(leader).crash();
    await kernel.runFor(4_000);
    // The other follower campaigns; the stalled one neither campaigns nor answers until its disk returns.
    expect(recordsOf(kernel, 'raft.campaign', stalled)).toEqual([]);
    expect(group.node(stalled).readyLoopBusy).toBe(true);
    expect(group.leaders()).toEqual([]);
    await kernel.runFor(4_000);
    expect(group.leaders()).toHaveLength(1);
  });

  it('a leader stuck on a slow fsync still believes it leads after its raft stepped down', async () => {
    const { kernel, group, leader } = await steady('stuck-leader');
    group.disk(leader).stall(kernel.now() + 5_000);
    group.node(leader).propose('x');
    await kernel.runFor(3_000);
    const node = group.node(leader);
    // Followers heard no heartbeats (the leader's ticks are held), elected another, whose messages
    // reached the stuck raft: raft follows, but the member learns it only from the next Ready.
    expect(node.status()).toMatchObject({ role: 'follower', readyLoopBusy: true });
    expect(node.status().term).toBeGreaterThan(2);
    expect(node.isLeader).toBe(true);
    expect(node.lead).toBe(leader);
    await kernel.runFor(2_500);
    expect(node.isLeader).toBe(false);
    expect(node.lead).toBe(group.leader());
  });

  it('sends a vote only after the vote is durable; a power loss before that forgets it', async () => {
    const { kernel, group, leader, followers } = await steady('durable-vote');
    const [voter, candidate] = followers;
    const crashedAtMs = kernel.now();
    const granted = () => recordsOf(kernel, 'raft.vote', voter).filter((r) => r.timeMs > crashedAtMs && r.fields['granted'] === true);
    group.process(leader).crash();
    group.disk(voter).stall(kernel.now() + 20_000);
    // The voter times out first or later; either way its own campaign's fsync sticks, and a later
    // request from the candidate (no leader, so no lease) is granted in memory only.
    await kernel.runUntilCondition(() => granted().length > 0, { untilMs: kernel.now() + 10_000 });
    const vote = granted()[0]!;
    expect(vote.fields['candidate']).toBe(candidate);
    await kernel.runFor(500);
    expect(sendsOf(kernel, voter, 'MsgVoteResp').filter((r) => r.timeMs >= vote.timeMs)).toEqual([]);
    expect(group.leaders()).toEqual([]);
    group.process(voter).crash({ powerLoss: true });
    group.process(voter).restart();
    // What was durable: the term-2 vote for the old leader.
    expect(group.node(voter).status()).toMatchObject({ term: 2, vote: leader });
  });
});

describe('RaftNode: crash and restart', () => {
  it('recovers term, vote and log from the WAL; a restarted member rejoins as a follower', async () => {
    const { kernel, group, leader, followers } = await steady('recover');
    for (let i = 0; i < 5; i++) group.node(leader).propose(`v${i}`);
    await kernel.runFor(200);
    const [follower] = followers;
    const before = group.node(follower).status();
    group.process(follower).crash();
    group.process(follower).restart();
    const after = group.node(follower).status();
    expect(after).toMatchObject({ role: 'follower', lead: null, term: before.term, vote: before.vote, lastIndex: before.lastIndex });
    await kernel.runFor(500);
    expect(group.node(follower).lead).toBe(leader);
    expect(appliedData(group.applied(follower))).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
  });

  it('a plain crash keeps unsynced WAL records; a power loss keeps only fsynced ones', async () => {
    const kernel = new Kernel({ seed: 'wal', yieldToHost });
    const process = new SimProcess(kernel, { name: 'solo' });
    const disk = new Disk<WalRecord<string>>(process, { fsyncLatency: { kind: 'constant', ms: 50 } });
    const sent: RaftMessage<string>[] = [];
    const node = new RaftNode<string>({ process, voters: ['solo'], config: raftConfig(), disk, send: (m) => sent.push(m) });
    await kernel.runUntilCondition(() => node.isLeader);
    await kernel.runFor(100);
    const durable = node.status().lastIndex;
    node.propose('unsynced');
    process.crash();
    process.restart();
    expect(node.status().lastIndex).toBe(durable + 1);
    await kernel.runUntilCondition(() => node.isLeader, { untilMs: kernel.now() + 5_000 });
    await kernel.runFor(100);
    const lastIndex = node.status().lastIndex;
    node.propose('lost');
    process.crash({ powerLoss: true });
    process.restart();
    expect(node.status().lastIndex).toBe(lastIndex);
    expect(sent).toEqual([]);
  });
});
