import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runReferenceWorkload } from './reference-workload.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

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
