// The tailer's election (etcd's concurrency recipe) on a simulated cluster: one leader at a time, a standby
// that takes over only once the leader's lease is gone, and a leader that stops believing before then.
import { describe, expect, it } from 'vitest';
import { PrefixGrants } from '../authz/index.js';
import { CancelSource } from '../cancel.js';
import { ClassRegistry } from '../classes/index.js';
import { createSimLockLog } from '../../sim/cluster/lock-log.js';
import { SimProcess } from '../../sim/process/process.js';
import { LogFaults } from '../../sim/world/log-faults.js';
import { World } from '../../sim/world/world.js';
import { type Leadership, campaign } from './election.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const TTL_SECONDS = 5;

async function world(seed: string): Promise<World> {
  const w = new World({ seed, yieldToHost, classes: new ClassRegistry([]), authorizer: new PrefixGrants([]) });
  await w.start();
  return w;
}

interface Candidate {
  readonly process: SimProcess;
  leadership?: Leadership;
  electedAtMs?: number;
  waitingBehind?: string;
  failed?: unknown;
}

function candidate(w: World, name: string, faults?: LogFaults): Candidate {
  const process = new SimProcess(w.kernel, { name });
  const entry: Candidate = { process };
  const simLog = createSimLockLog({ kernel: w.kernel, network: w.clusterNetwork, client: process, endpoints: w.cluster.members });
  const log = faults === undefined ? simLog : faults.wrap(simLog, process.clock());
  void campaign({ log, clock: process.clock(), candidate: name, ttlSeconds: TTL_SECONDS, signal: new CancelSource(), onWaiting: (leader) => (entry.waitingBehind = leader) }).then(
    (leadership) => {
      entry.leadership = leadership;
      entry.electedAtMs = w.kernel.now();
    },
    (error: unknown) => (entry.failed = error),
  );
  return entry;
}

describe('campaign', () => {
  it('leads after its predecessor\'s lease is gone although its watch lost the delete (swarm seed 2836)', async () => {
    const w = await world('election-lossy-watch');
    const first = candidate(w, 'tailer-a');
    await w.runUntil(w.kernel.now() + 500);
    const lossy = new LogFaults();
    lossy.dropWatchEvents = true; // the stream stays open; its events are gone (a stuck member, say)
    const second = candidate(w, 'tailer-b', lossy);
    await w.runUntil(w.kernel.now() + 2_000);
    expect(second.waitingBehind).toBe('tailer-a');
    first.process.crash(); // its lease ends a TTL later, and its key with it
    const crashedAtMs = w.kernel.now();
    await w.runUntil(w.kernel.now() + 3 * TTL_SECONDS * 1_000);
    // Before the fix the candidate waited on the watch for ever. Now its poll sees the line.
    expect(second.leadership?.holds()).toBe(true);
    expect((second.electedAtMs ?? Infinity) - crashedAtMs).toBeLessThan(TTL_SECONDS * 1_000 + 2_500);
    expect(lossy.counts.watchBatchesDropped).toBeGreaterThan(0);
  });

  it('elects one candidate; the next waits behind it and leads as soon as it resigns', async () => {
    const w = await world('election-resign');
    const first = candidate(w, 'tailer-a');
    await w.runUntil(w.kernel.now() + 500);
    const second = candidate(w, 'tailer-b');
    await w.runUntil(w.kernel.now() + 3_000);
    expect(first.leadership?.holds()).toBe(true);
    expect(second.leadership).toBeUndefined();
    expect(second.waitingBehind).toBe('tailer-a');
    const resignedAtMs = w.kernel.now();
    void first.leadership?.resign();
    await w.runUntil(w.kernel.now() + 1_000);
    expect(first.leadership?.holds()).toBe(false);
    expect(second.leadership?.holds()).toBe(true);
    expect((second.electedAtMs ?? Infinity) - resignedAtMs).toBeLessThan(1_000);
  });

  it('lets a standby lead after a crashed leader only once the leader\'s lease has expired, and the leader stops believing before that', async () => {
    const w = await world('election-crash');
    const first = candidate(w, 'tailer-a');
    await w.runUntil(w.kernel.now() + 500);
    const second = candidate(w, 'tailer-b');
    await w.runUntil(w.kernel.now() + 2_000);
    expect(first.leadership?.holds()).toBe(true);
    // The leader is cut off from every member: its renewals fail, its lease runs out.
    const heal = w.partition({ from: ['tailer-a'], to: w.cluster.members.map((m) => m.name), direction: 'both' });
    const cutAtMs = w.kernel.now();
    let stoppedBelievingAtMs: number | undefined;
    let renewalFailureSeenBySecondElection: boolean | undefined;
    while (w.kernel.now() < cutAtMs + 4 * TTL_SECONDS * 1_000 && second.electedAtMs === undefined) {
      await w.runUntil(w.kernel.now() + 50);
      if (stoppedBelievingAtMs === undefined && first.leadership?.holds() === false) stoppedBelievingAtMs = w.kernel.now();
      if (second.electedAtMs !== undefined) renewalFailureSeenBySecondElection = first.leadership?.lost.aborted;
    }
    heal();
    expect(second.electedAtMs).toBeDefined();
    expect(stoppedBelievingAtMs).toBeDefined();
    // No moment at which both believed they led.
    expect(stoppedBelievingAtMs ?? Infinity).toBeLessThanOrEqual(second.electedAtMs ?? -Infinity);
    // Negative control: the leader's failing renewal had not come back yet (its call waits out its deadline),
    // so a leader that believed until a renewal failed would have overlapped the new one; the deadline did not.
    expect(renewalFailureSeenBySecondElection).toBe(false);
    // The standby waited for the lease: not before a TTL since the last renewal the leader could have sent.
    expect((second.electedAtMs ?? 0) - cutAtMs).toBeGreaterThan((TTL_SECONDS * 1_000) / 3);
  });
});
