import { describe, expect, it } from 'vitest';
import type { UnprotectedRecord } from '../../core/ports/spool.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { SimSpool, replaySpool } from './sim-spool.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const record = (seq: number): UnprotectedRecord => ({ id: `a/1/${seq}`, kind: 'grant', grantId: `a/1/${seq}`, arbiterId: 'a', key: 'ns/k', namespace: 'ns', className: 'c', identity: 'i', instance: '', atMs: seq });

function setUp() {
  const kernel = new Kernel({ seed: 'spool-test', yieldToHost });
  const process = new SimProcess(kernel, { name: 'arbiter-1' });
  return { kernel, process, spool: new SimSpool(process, { kind: 'constant', ms: 2 }) };
}

describe('SimSpool (ADR-04)', () => {
  it('answers an append once it is durable, and a truncation keeps what was appended after its id', async () => {
    const { kernel, spool } = setUp();
    let durable = false;
    const appended = spool.append(record(1)).then(() => (durable = true));
    await kernel.runUntil(1);
    expect(durable).toBe(false);
    await kernel.runUntil(3);
    await appended;
    expect(durable).toBe(true);
    void spool.append(record(2));
    void spool.append(record(3));
    void spool.truncate('a/1/2');
    await kernel.runUntilQuiescent();
    expect((await spool.read()).map((r) => r.id)).toEqual(['a/1/3']);
  });

  it.each([false, true])('keeps its synced records across a crash and loses the unsynced tail (power loss: %s), even once a later fsync covers it', async (powerLoss) => {
    const { kernel, process, spool } = setUp();
    void spool.append(record(1));
    await kernel.runUntilQuiescent();
    let answered = false;
    void spool.append(record(2)).then(() => (answered = true));
    process.crash({ powerLoss });
    await kernel.runUntilQuiescent();
    expect(answered).toBe(false); // never told durable: the arbiter answered nobody for it
    process.restart();
    expect((await spool.read()).map((r) => r.id)).toEqual(['a/1/1']);
    void spool.append(record(3));
    await kernel.runUntilQuiescent();
    expect((await spool.read()).map((r) => r.id)).toEqual(['a/1/1', 'a/1/3']);
  });

  it('replays a truncation of an id it no longer lists as no change', () => {
    expect(replaySpool([{ record: record(1) }, { truncatedThrough: 'a/1/9' }]).map((r) => r.id)).toEqual(['a/1/1']);
  });
});
