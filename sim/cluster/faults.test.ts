// A safety smoke under random faults: crashes (some with power loss), partitions, pauses and disk stalls,
// drawn from a seeded stream, while clients write. Afterwards, with every fault healed: no term had two
// leaders, every index applied the same entry everywhere, all members reach the same state, and every
// write a client saw acknowledged is there at the revision its header named.
import { describe, expect, it } from 'vitest';
import { revision } from '../../core/units.js';
import { stateDigest } from '../etcd/apply.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { createClusterNetwork, createSimCluster } from './cluster.js';
import { createSimLockLog } from './lock-log.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

interface Ack {
  readonly key: string;
  readonly value: string;
  readonly revision: bigint;
}

async function faultRun(seed: string) {
  const kernel = new Kernel({ seed, yieldToHost });
  const network = createClusterNetwork(kernel);
  const cluster = createSimCluster(kernel, network, { members: 3, preVote: seed.endsWith('3.5') });
  const faults = kernel.rng.stream('test/faults');
  const acks: Ack[] = [];
  let stopped = false;
  for (let w = 0; w < 3; w++) {
    const client = new SimProcess(kernel, { name: `writer-${w}` });
    const endpoints = cluster.members.map((_, j) => cluster.members[(w + j) % 3]!);
    const log = createSimLockLog({ kernel, network, client, endpoints });
    const clock = client.clock();
    void (async () => {
      for (let n = 0; !stopped; n++) {
        const key = `/k/${n % 7}`;
        const value = `${w}.${n}`;
        await log.txn({ compare: [], success: [{ type: 'put', key, value }], failure: [] }).then(
          (response) => void acks.push({ key, value, revision: response.header.revision }),
          () => undefined,
        );
        await clock.sleep(40);
      }
    })();
  }
  await kernel.runFor(2_000);
  const names = cluster.members.map((m) => m.name);
  for (let step = 0; step < 12; step++) {
    const name = faults.pick(names);
    const member = cluster.member(name);
    const kind = faults.int(0, 3);
    const lastsMs = 500 + faults.next() * 3_000;
    if (kind === 0 && member.process.state === 'running') {
      cluster.crash(name, { powerLoss: faults.chance(0.3) });
      kernel.scheduleAfter(lastsMs, () => cluster.restart(name));
    } else if (kind === 1) {
      cluster.partition({ from: [name], to: names.filter((other) => other !== name), healAtMs: kernel.now() + lastsMs });
    } else if (kind === 2 && member.process.state === 'running') {
      cluster.pause(name);
      kernel.scheduleAfter(lastsMs, () => cluster.resume(name));
    } else {
      cluster.stallDisk(name, kernel.now() + lastsMs);
    }
    await kernel.runFor(1_000 + faults.next() * 2_000);
  }
  await kernel.runFor(5_000);
  stopped = true;
  await kernel.runFor(10_000);
  return { kernel, cluster, acks };
}

describe('safety under random faults', () => {
  for (const seed of ['faults-1', 'faults-2', 'faults-3.5', 'faults-4']) {
    it(`keeps Raft and the KV store safe (${seed})`, async () => {
      const { cluster, acks } = await faultRun(seed);
      expect(cluster.violations).toEqual([]);
      const members = cluster.members;
      expect(members.every((m) => m.running)).toBe(true);
      const applied = members.map((m) => m.appliedIndex);
      expect(new Set(applied).size).toBe(1);
      expect(new Set(members.map((m) => stateDigest(m.state!))).size).toBe(1);
      expect(acks.length).toBeGreaterThan(100);
      expect(new Set(acks.map((ack) => ack.revision)).size).toBe(acks.length);
      const store = members[0]!.state!.store;
      for (const ack of acks) {
        const read = store.range({ key: ack.key, revision: revision(ack.revision) });
        expect(read.ok && read.value.kvs.map((kv) => [kv.value, kv.modRevision])).toEqual([[ack.value, ack.revision]]);
      }
    });
  }
});
