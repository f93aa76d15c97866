import { describe, expect, it } from 'vitest';
import type { DistributionSpec } from '../kernel/distribution.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { Disk } from './disk.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function world(fsyncLatency: DistributionSpec = { kind: 'constant', ms: 2 }) {
  const kernel = new Kernel({ seed: 'disk-test', yieldToHost, trace: { keepRecords: true } });
  const member = new SimProcess(kernel, { name: 'etcd-1' });
  const disk = new Disk<string>(member, { fsyncLatency });
  const log: string[] = [];
  const done = (label: string) => () => log.push(`${label}@${kernel.now()}`);
  return { kernel, member, disk, log, done };
}

describe('Disk', () => {
  it('serialises fsyncs: each starts when the one before it is durable', async () => {
    const { kernel, disk, log, done } = world({ kind: 'lognormal', medianMs: 1, p99Ms: 8 });
    for (const label of ['f0', 'f1', 'f2', 'f3']) disk.fsync(done(label));
    expect(disk.queuedFsyncs).toBe(4);
    await kernel.runUntilQuiescent();
    const completions = kernel.trace.records().filter((r) => r.kind === 'disk.fsync.done');
    const latencies = completions.map((r) => Number(r.fields['latencyMs']));
    const ends = completions.map((r) => r.timeMs);
    // Back to back: each completion is the previous one plus this fsync's own latency.
    ends.forEach((end, i) => expect(end).toBeCloseTo((ends[i - 1] ?? 0) + latencies[i]!, 9));
    expect(log.map((entry) => entry.split('@')[0])).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(disk.queuedFsyncs).toBe(0);
  });

  it('makes durable exactly the entries written before the fsync was issued', async () => {
    const { kernel, disk, done } = world();
    disk.write('a');
    disk.write('b');
    disk.fsync(done('sync'));
    disk.write('c');
    await kernel.runUntilQuiescent();
    expect(disk.durableEntries).toEqual(['a', 'b']);
    expect(disk.allEntries).toEqual(['a', 'b', 'c']);
  });

  it('stalls: an fsync in flight completes at the stall end, and queued ones start after it', async () => {
    const { kernel, disk, log, done } = world();
    disk.fsync(done('in flight'));
    disk.fsync(done('queued'));
    kernel.schedule(1, () => disk.stall(10));
    kernel.schedule(20, () => disk.stall(30));
    kernel.schedule(25, () => disk.fsync(done('issued during stall')));
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['in flight@10', 'queued@12', 'issued during stall@32']);
  });

  it('keeps working during a pause: data is durable on time, the callback waits for resume', async () => {
    const { kernel, member, disk, log } = world();
    disk.write('entry');
    kernel.schedule(1, () => member.pause());
    disk.fsync(() => log.push(`callback@${kernel.now()} durable=${disk.durableLength}`));
    kernel.schedule(3, () => log.push(`durable at 3: ${disk.durableLength}`));
    kernel.schedule(9, () => member.resume());
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['durable at 3: 1', 'callback@9 durable=1']);
  });

  it('drops fsyncs at a crash; unsynced entries survive a process crash but not a power loss', async () => {
    const { kernel, member, disk, log, done } = world();
    disk.write('synced');
    disk.fsync(done('first'));
    kernel.schedule(2, () => {
      disk.write('unsynced');
      disk.fsync(done('dropped'));
      void disk.sync().then(done('promise'));
    });
    kernel.schedule(3, () => member.crash({ powerLoss: true }));
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['first@2']);
    expect(disk.allEntries).toEqual(['synced']);
    expect(disk.queuedFsyncs).toBe(0);

    member.restart();
    disk.write('written before a process crash');
    member.crash();
    expect(disk.durableEntries).toEqual(['synced', 'written before a process crash']);
    const crashes = kernel.trace.records().filter((r) => r.kind === 'disk.crash').map((r) => r.fields);
    expect(crashes).toEqual([
      { disk: 'disk', droppedFsyncs: 2, lostEntries: 1, powerLoss: true },
      { disk: 'disk', droppedFsyncs: 0, lostEntries: 0, powerLoss: false },
    ]);
  });

  it('bounds queued fsyncs by name', () => {
    const kernel = new Kernel({ seed: 's' });
    const disk = new Disk(new SimProcess(kernel, { name: 'p' }), { fsyncLatency: { kind: 'constant', ms: 1 }, maxQueuedFsyncs: 2 });
    disk.fsync();
    disk.fsync();
    expect(() => disk.fsync()).toThrow('maxQueuedFsyncs (2)');
  });
});

describe('Disk.replacePrefix (the WAL purge, issue 16)', () => {
  it('replaces durable entries by one, keeping positions, and crashes as before', async () => {
    const { kernel, disk, member } = world();
    for (const entry of ['a', 'b', 'c']) disk.write(entry);
    disk.fsync();
    await kernel.runUntilQuiescent();
    disk.write('d');
    disk.replacePrefix(3, 'abc');
    expect([disk.durableEntries, disk.allEntries, disk.durableLength, disk.replacedCount]).toEqual([['abc'], ['abc', 'd'], 3, 3]);
    expect(() => disk.replacePrefix(4, 'x')).toThrow(/only durable ones/);
    member.crash({ powerLoss: true });
    expect(disk.allEntries).toEqual(['abc']);
  });
});
