// audit-complete on the scenarios (ADR-21): every scenario's world runs the audit tailer through a crash,
// a compaction and a restart (scenario.ts worldBasics), and as-declared.test.ts holds every pass variant to
// it. Here: it catches a tailer that drops expiries, at every seed, where the honest one passes.
import { describe, expect, it } from 'vitest';
import { checkRun } from '../core/checkers/index.js';
import { DROPS_EXPIRIES } from './audit-mutants.js';
import { partition } from './partition.js';
import { pauseTest } from './pause-test.js';
import type { Scenario } from './scenario.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const SEEDS = ['1', '2', '3'];

async function auditCheck(scenario: Scenario, seed: string, mutant: boolean) {
  const outcome = await scenario.run({ seed, variant: scenario.variants[0], yieldToHost, ...(mutant ? { auditSeams: DROPS_EXPIRIES } : {}) });
  const result = checkRun(outcome.history).find((c) => c.name === 'audit-complete');
  return { result, expiries: outcome.history.grants.filter((g) => g.endReason === 'expiry').length, gaps: outcome.history.audit?.gaps.length ?? 0 };
}

describe('audit-complete in the scenarios', () => {
  for (const scenario of [pauseTest, partition]) {
    it(`${scenario.name}: passes with the honest tailer and fails on one that drops expiries, at seeds ${SEEDS.join(', ')}`, async () => {
      for (const seed of SEEDS) {
        const honest = await auditCheck(scenario, seed, false);
        expect(honest.expiries, `seed ${seed}: the scenario has an expiry to lose`).toBeGreaterThan(0);
        expect(honest.result, `seed ${seed}`).toMatchObject({ ok: true });
        const mutant = await auditCheck(scenario, seed, true);
        expect(mutant.result?.ok, `seed ${seed}`).toBe(false);
        expect(mutant.result?.violations.map((v) => v.kind), `seed ${seed}`).toEqual(Array.from({ length: honest.expiries }, () => 'audit-missing'));
      }
    }, 120_000);
  }
});
