import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startLockWorkload, workloadPolicy } from '../world/lock-workload.js';
import { World } from '../world/world.js';
import { runReferenceWorkload } from './reference-workload.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
// node runs the tick queue only once the microtask queue is empty (processTicksAndRejections), so a
// tick queued by the kernel's loop, itself a microtask, fires after every continuation: a full drain
// without a turn of the event loop. bench:sim uses it.
const tickYield = (): Promise<void> => new Promise((done) => process.nextTick(done));

async function lockWorldHash(hostYield: () => Promise<void>): Promise<string> {
  const world = new World({ seed: 'tick-drain', yieldToHost: hostYield, ...workloadPolicy(15, 20) });
  await world.start();
  const workload = startLockWorkload({ world, clients: 20, ttlSeconds: 15, grantsPerSecond: 50, keys: 30, holdMs: 50, waitMs: 1000 });
  await world.runUntil(world.kernel.now() + 10_000);
  workload.stop();
  expect(workload.stats.granted).toBeGreaterThan(200);
  return world.kernel.trace.hash();
}

describe('determinism of the reference workload', () => {
  it('gives the same trace hash for the same seed, and another for another seed', async () => {
    const first = await runReferenceWorkload({ seed: 'lockstep-1', yieldToHost });
    const again = await runReferenceWorkload({ seed: 'lockstep-1', yieldToHost });
    const other = await runReferenceWorkload({ seed: 'lockstep-2', yieldToHost });
    expect(first.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(again.hash).toBe(first.hash);
    expect(other.hash).not.toBe(first.hash);
    // The workload really ran: replies, timeouts and faults are all in the trace.
    expect(first.repliesReceived).toBeGreaterThan(20);
    expect(first.records).toBeGreaterThan(400);
  });

  it("drains exactly: draining after every event ('always') gives the same hash as 'auto'", async () => {
    const auto = await runReferenceWorkload({ seed: 'lockstep-3', yieldToHost });
    const always = await runReferenceWorkload({ seed: 'lockstep-3', yieldToHost, drain: 'always' });
    expect(always.hash).toBe(auto.hash);
  });

  it('drains as fully through the tick queue as through an immediate: same hashes, auto and always, and on a lock world', async () => {
    const immediate = await runReferenceWorkload({ seed: 'lockstep-4', yieldToHost });
    const tick = await runReferenceWorkload({ seed: 'lockstep-4', yieldToHost: tickYield });
    const tickAlways = await runReferenceWorkload({ seed: 'lockstep-4', yieldToHost: tickYield, drain: 'always' });
    expect([tick.hash, tickAlways.hash]).toEqual([immediate.hash, immediate.hash]);
    expect(await lockWorldHash(tickYield)).toBe(await lockWorldHash(yieldToHost));
  });

  it('gives the same hash in a separate process', async () => {
    const here = await runReferenceWorkload({ seed: 'lockstep-1', yieldToHost });
    const directory = mkdtempSync(join(tmpdir(), 'lockstep-determinism-'));
    const script = join(directory, 'hash.mts');
    const workload = resolve(import.meta.dirname, 'reference-workload.ts');
    writeFileSync(
      script,
      `import { runReferenceWorkload } from ${JSON.stringify(workload)};\n` +
        `const result = await runReferenceWorkload({ seed: 'lockstep-1', yieldToHost: () => new Promise((r) => setImmediate(r)) });\n` +
        `console.log(result.hash);\n`,
    );
    const tsx = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');
    const { stdout } = await promisify(execFile)(tsx, [script], { cwd: resolve(import.meta.dirname, '../..') });
    expect(stdout.trim()).toBe(here.hash);
  });
});
