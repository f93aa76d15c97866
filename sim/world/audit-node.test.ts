import { describe, expect, it } from 'vitest';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry } from '../../core/classes/index.js';
import { checkRun } from '../../core/checkers/index.js';
import { auditRunOf } from './audit-record.js';
import { World } from './world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const CLASS = { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'db://orders', ttlSeconds: 5, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;

describe('the audit tailer in the world', () => {
  it('with two tailers, one writes at a time: the standby writes only after the first crashed and its lease expired', async () => {
    const w = new World({
      seed: 'audit-two-tailers',
      yieldToHost,
      classes: new ClassRegistry([CLASS]),
      authorizer: new PrefixGrants([namespaceGrant('spiffe://sim/alice', 'orders')]),
      audit: { tailers: 2, electionTtlSeconds: 5, plan: { crashAtMs: 4_000 } },
    });
    await w.start();
    const alice = w.addClient('alice');
    const startMs = w.kernel.now();
    void (async () => {
      for (let i = 0; i < 40; i += 1) {
        const handle = await alice.client.acquire({ key: `orders/o-${i % 3}`, className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, waitMs: 5_000, onFence: () => {} });
        await alice.process.clock().sleep(200);
        await handle.release();
      }
    })();
    await w.runUntil(startMs + 20_000);
    const node = w.audit;
    expect(node).toBeDefined();
    const writers = [...new Set(node?.writes.map((write) => write.tailer))];
    expect(writers).toEqual(['auditor-1', 'auditor-2']);
    const firstByTwo = node?.writes.find((write) => write.tailer === 'auditor-2')?.atMs ?? 0;
    const lastByOne = Math.max(...(node?.writes.filter((write) => write.tailer === 'auditor-1').map((write) => write.atMs) ?? []));
    expect(lastByOne).toBeLessThanOrEqual(startMs + 4_000);
    // Not before auditor-1's lease could have run out: its last renewal plus the 5 s TTL.
    expect(firstByTwo - (startMs + 4_000)).toBeGreaterThan(5_000 - 5_000 / 3);
    const audit = auditRunOf(w);
    expect(audit?.conflicts).toBe(0);
    expect(checkRun({ grants: w.log.grants, ...(audit === undefined ? {} : { audit }) }).find((c) => c.name === 'audit-complete')).toMatchObject({ ok: true });
  });
});
