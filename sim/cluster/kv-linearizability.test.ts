// The simulated etcd stays linearizable under faults (the simulator issue): clients put, read and
// compare-and-swap a few keys through SimLockLog while members are partitioned, paused and crashed;
// the history, with timed-out writes as unknown outcomes, is checked with core/checkers' KV model. A
// negative control shows the check can fail: serializable reads from a member cut off from the
// majority return stale values, which no linearizable order explains.
import { describe, expect, it } from 'vitest';
import { type HistoryEvent, checkHistory, kvModel } from '../../core/checkers/index.js';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { createClusterNetwork, createSimCluster, type SimCluster } from './cluster.js';
import { createSimLockLog } from './lock-log.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const KEYS = ['/kv/a', '/kv/b'];

interface Client {
  readonly name: string;
  readonly log: LockLog;
  readonly process: SimProcess;
}

function world(seed: string): { kernel: Kernel; cluster: SimCluster; clients: Client[] } {
  const kernel = new Kernel({ seed, yieldToHost });
  const network = createClusterNetwork(kernel);
  const cluster = createSimCluster(kernel, network, { members: 3 });
  const clients = [0, 1, 2].map((i) => {
    const process = new SimProcess(kernel, { name: `kv-client-${i}` });
    const endpoints = cluster.members.map((_, j) => cluster.members[(i + j) % cluster.members.length]!);
    return { name: process.name, process, log: createSimLockLog({ kernel, network, client: process, endpoints, requestTimeoutMs: 3_000 }) };
  });
  return { kernel, cluster, clients };
}

/** One client's loop: random puts, linearizable gets and value-compare CAS, each recorded as invoke + completion. */
async function clientLoop(kernel: Kernel, client: Client, untilMs: number, history: HistoryEvent[], serializableReads = false): Promise<void> {
  const rng = kernel.rng.stream(`kv-test/${client.name}`);
  let sequence = 0;
  const lastRead = new Map<string, string | null>();
  const record = (type: HistoryEvent['type'], f: string, key: string, value: unknown): void => {
    if (type === 'invoke') pending = { f, key };
    history.push({ process: client.name, type, f, key, value, time: kernel.now() });
  };
  let pending: { f: string; key: string } = { f: 'get', key: KEYS[0] ?? '/kv/a' };
  while (kernel.now() < untilMs) {
    const key = KEYS[Math.floor(rng.next() * KEYS.length)] ?? '/kv/a';
    const choice = rng.next();
    const value = `${client.name}-${sequence++}`;
    try {
      if (choice < 0.4) {
        record('invoke', 'put', key, value);
        await client.log.txn({ compare: [], success: [{ type: 'put', key, value }], failure: [] });
        record('ok', 'put', key, null);
      } else if (choice < 0.75) {
        record('invoke', 'get', key, null);
        const response = await client.log.range({ key, serializable: serializableReads });
        const read = response.kvs[0]?.value ?? null;
        lastRead.set(key, read);
        record('ok', 'get', key, read);
      } else {
        const from = lastRead.get(key) ?? null;
        record('invoke', 'cas', key, { from, to: value });
        const compare = from === null ? ({ key, target: 'create', op: '=', value: 0n } as const) : ({ key, target: 'value', op: '=', value: from } as const);
        const response = await client.log.txn({ compare: [compare], success: [{ type: 'put', key, value }], failure: [] });
        record(response.succeeded ? 'ok' : 'fail', 'cas', key, null);
      }
    } catch (error) {
      const unknown = isLockLogError(error) && error.outcome === 'indeterminate';
      record(unknown ? 'info' : 'fail', pending.f, pending.key, null);
    }
    await client.process.clock().sleep(20 + rng.next() * 80);
  }
}

/** Every 1.5 s one fault from the seed: cut a member off, pause one, or crash and restart one. */
function injectFaults(kernel: Kernel, cluster: SimCluster, untilMs: number): string[] {
  const rng = kernel.rng.stream('kv-test/faults');
  const applied: string[] = [];
  for (let at = 2_000; at < untilMs - 3_000; at += 1_500) {
    kernel.schedule(at, () => {
      const member = cluster.members[Math.floor(rng.next() * cluster.members.length)];
      if (member === undefined || member.process.state !== 'running') return;
      const kind = rng.next();
      const heal = 500 + rng.next() * 1_500;
      if (kind < 0.4) {
        const id = cluster.isolateFromPeers(member.name);
        kernel.scheduleAfter(heal, () => cluster.heal(id));
        applied.push(`${at}: isolate ${member.name}`);
      } else if (kind < 0.7) {
        cluster.pause(member.name);
        kernel.scheduleAfter(heal, () => cluster.resume(member.name));
        applied.push(`${at}: pause ${member.name}`);
      } else {
        cluster.crash(member.name);
        kernel.scheduleAfter(heal, () => cluster.restart(member.name));
        applied.push(`${at}: crash ${member.name}`);
      }
    });
  }
  return applied;
}

describe('the simulated etcd KV is linearizable under faults', () => {
  it.each(['kv-1', 'kv-2', 'kv-3'])('seed %s: partitions, pauses and crashes; the history checks out', async (seed) => {
    const { kernel, cluster, clients } = world(seed);
    const untilMs = 30_000;
    const history: HistoryEvent[] = [];
    const faults = injectFaults(kernel, cluster, untilMs);
    const loops = Promise.all(clients.map((client) => clientLoop(kernel, client, untilMs, history)));
    await kernel.runUntil(untilMs + 10_000);
    await loops;
    const checked = checkHistory(kvModel(), history);
    if (checked.kind !== 'checked') throw new Error(`bad history: ${JSON.stringify(checked.problems.slice(0, 2))}`);
    expect(checked.result.verdict).toBe('ok');
    expect(faults.length).toBeGreaterThan(10);
    expect(history.filter((e) => e.type === 'ok').length).toBeGreaterThan(300);
    expect(history.some((e) => e.type === 'info' || e.type === 'fail')).toBe(true); // the faults bit
    expect(cluster.violations).toEqual([]);
  });

  it('negative control: serializable reads from a member cut off from the majority are caught as stale', async () => {
    const { kernel, cluster, clients } = world('kv-stale');
    await kernel.runUntilCondition(() => cluster.leader() !== undefined, { untilMs: 10_000 });
    const leader = cluster.leader()?.name;
    const follower = cluster.members.find((m) => m.name !== leader);
    if (follower === undefined) throw new Error('a follower exists');
    const history: HistoryEvent[] = [];
    const [writer] = clients;
    if (writer === undefined) throw new Error('clients exist');
    const reader = { ...clients[1]!, log: createSimLockLog({ kernel, network: cluster.network, client: clients[1]!.process, endpoints: [follower], requestTimeoutMs: 3_000, port: 'stale-reader' }) };
    const put = (value: string) => writer.log.txn({ compare: [], success: [{ type: 'put', key: '/kv/a', value }], failure: [] });
    const first = put('v1');
    await kernel.runUntil(kernel.now() + 500);
    await first;
    cluster.isolateFromPeers(follower.name);
    const start = kernel.now();
    const loops = Promise.all([clientLoop(kernel, writer, start + 3_000, history), clientLoop(kernel, reader, start + 3_000, history, true)]);
    await kernel.runUntil(start + 8_000);
    await loops;
    const checked = checkHistory(kvModel(), history);
    if (checked.kind !== 'checked') throw new Error('bad history');
    expect(checked.result.verdict).toBe('illegal');
  });
});
