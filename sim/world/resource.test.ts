import { describe, expect, it } from 'vitest';
import { Kernel } from '../kernel/kernel.js';
import { Network } from '../net/network.js';
import { SimProcess } from '../process/process.js';
import type { FenceMode } from '../../core/fence/index.js';
import { ResourceClient, type ResourceMessage, SimResource } from './resource.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

async function writes(fenced: boolean, tokens: readonly bigint[], fenceMode?: FenceMode): Promise<{ accepted: boolean[]; resource: SimResource }> {
  const kernel = new Kernel({ seed: 'resource', yieldToHost });
  const network = new Network<ResourceMessage>(kernel, { defaults: { latency: { kind: 'constant', ms: 1 }, ordered: true } });
  const processes = new Map<string, SimProcess>();
  const add = (name: string): SimProcess => {
    const process = new SimProcess(kernel, { name });
    processes.set(name, process);
    return process;
  };
  const resource = new SimResource(add('db'), network, { fenced, writeMs: 5, ...(fenceMode === undefined ? {} : { fenceMode }) }, (name) => processes.get(name) as SimProcess);
  const client = new ResourceClient(kernel, network, add('writer'), 'writer');
  const accepted: boolean[] = [];
  const done = (async () => {
    for (const token of tokens) accepted.push(await client.write(resource, 'k', token, `value of ${token}`));
  })();
  await kernel.runUntil(1_000);
  await done;
  return { accepted, resource };
}

describe('a guarded resource (ADR-16)', () => {
  it('fenced: accepts only a token above the key\'s high-water mark, equal ones included in the refusal', async () => {
    const { accepted, resource } = await writes(true, [5n, 9n, 7n, 9n, 12n]);
    expect(accepted).toEqual([true, true, false, false, true]);
    expect(resource.writes.map((w) => [w.token, w.accepted])).toEqual([[5n, true], [9n, true], [7n, false], [9n, false], [12n, true]]);
  });

  it('fenced at-or-above: takes a grant\'s repeated write, still refuses a lower token', async () => {
    const { accepted } = await writes(true, [5n, 9n, 9n, 7n], 'at-or-above');
    expect(accepted).toEqual([true, true, true, false]);
  });

  it('reads back the last write it took on a key, not the refused ones', async () => {
    const { resource } = await writes(true, [5n, 9n, 7n]);
    expect(resource.read('k')).toEqual({ token: 9n, holder: 'writer', value: 'value of 9' });
    expect(resource.read('other')).toBeUndefined();
  });

  it('unfenced: accepts a stale token, which is what the fence checker must catch', async () => {
    const { accepted } = await writes(false, [9n, 7n]);
    expect(accepted).toEqual([true, true]);
  });

  it('records each write as spanning its duration at the resource', async () => {
    const { resource } = await writes(true, [1n]);
    const [write] = resource.writes;
    expect(write && write.endMs - write.atMs).toBe(5);
  });
});
