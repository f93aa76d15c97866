import { describe, expect, it } from 'vitest';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry } from '../../core/classes/index.js';
import { World } from './world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const CLASS = { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'db://orders', ttlSeconds: 5, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;
const PEOPLE = ['alice', 'bob', 'carol'];

/** Three clients taking turns on two keys for 20 simulated seconds; the last hold of each is left open. */
async function turns(keepGrants: boolean): Promise<World> {
  const w = new World({
    seed: 'recorder',
    yieldToHost,
    keepGrants,
    classes: new ClassRegistry([CLASS]),
    authorizer: new PrefixGrants(PEOPLE.map((name) => namespaceGrant(`spiffe://sim/${name}`, 'orders'))),
  });
  await w.start();
  const failures: string[] = [];
  for (const [i, name] of PEOPLE.entries()) {
    const node = w.addClient(name);
    void (async () => {
      for (let round = 0; round < 6; round += 1) {
        const handle = await node.client.acquire({ key: `orders/o-${(i + round) % 2}`, className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, waitMs: 30_000, onFence: () => failures.push(`${name} fenced`) });
        await node.process.clock().sleep(300);
        if (round < 5) await handle.release();
      }
    })().catch((error: unknown) => failures.push(`${name}: ${String(error)}`));
  }
  await w.runUntil(20_000);
  expect(failures).toEqual([]);
  return w;
}

describe('LogRecorder', () => {
  it('builds every grant in one shape, its end written in place', async () => {
    const w = await turns(true);
    const grants = w.log.grants;
    expect(grants.length).toBeGreaterThan(10);
    // One key list for open and ended grants alike: before, an ended grant was a spread copy with three
    // more keys, and every one of them got a hidden class of its own (issue 16).
    const keyLists = new Set(grants.map((g) => Object.keys(g).join(',')));
    expect([...keyLists]).toEqual(['key,token,holder,session,cluster,revision,grantedAtMs,endedAtRevision,endedAtMs,endReason']);
    const ended = grants.filter((g) => g.endedAtRevision !== undefined);
    const open = grants.filter((g) => g.endedAtRevision === undefined);
    expect(ended.length).toBeGreaterThan(open.length);
    for (const g of ended) {
      expect(g.endedAtRevision).toBeGreaterThan(g.revision);
      expect(g.endedAtMs).toBeGreaterThanOrEqual(g.grantedAtMs);
      expect(g.endReason).toBe('release');
    }
    for (const g of open) expect([g.endedAtMs, g.endReason]).toEqual([undefined, undefined]);
    // JSON (the run artifact) leaves the absent ends out, as it did when they were absent keys.
    expect(JSON.parse(JSON.stringify(open[0], (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)))).not.toHaveProperty('endedAtMs');
    expect(w.log.grantsRecorded).toBe(grants.length);
  });

  it('keepGrants: false counts the same grants and keeps none; the run is the same run', async () => {
    const kept = await turns(true);
    const counted = await turns(false);
    expect(counted.kernel.trace.hash()).toBe(kept.kernel.trace.hash());
    expect(counted.log.grantsRecorded).toBe(kept.log.grants.length);
    expect(() => counted.log.grants).toThrow(/keepGrants: false.*grantsRecorded/);
    expect(() => counted.grants).toThrow(/not kept/);
  });
});
