// `lockstep run --all --seed N` must say "every variant behaved as it declares" for any N: a user who tries
// another seed and sees a violation variant pass (or a passing one fail) stops trusting the suite. So every
// variant runs here at several seeds: a violation variant must fail each check it names (its `shows`, also
// named in its description), not just any check; a pass variant must fail none. Each run takes 0.1-0.5 s.
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from './registry.js';
import { runScenario } from './runner.js';
import type { PassVariant, Scenario, ViolationVariant } from './scenario.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const SEEDS = ['1', '2', '3', '4', '5', '6', '7', '8'];

const all = SCENARIOS.flatMap((scenario) => scenario.variants.map((variant) => ({ scenario, variant })));
const violations = all.flatMap(({ scenario, variant }) => (variant.expect === 'violation' ? [[`${scenario.name}/${variant.name}`, scenario, variant] as const] : []));
const passes = all.flatMap(({ scenario, variant }) => (variant.expect === 'pass' ? [[`${scenario.name}/${variant.name}`, scenario, variant] as const] : []));

/** The checks that failed in each seed's run, by seed. */
async function failedChecks(scenario: Scenario, variant: string): Promise<Record<string, string[]>> {
  const failed: Record<string, string[]> = {};
  for (const seed of SEEDS) {
    const artifact = await runScenario(scenario, variant, seed, { yieldToHost });
    failed[seed] = artifact.checks.filter((c) => !c.ok).map((c) => c.name);
  }
  return failed;
}

describe(`every variant behaves as it declares at seeds ${SEEDS[0]}..${SEEDS.at(-1)}`, () => {
  it('has variants of both kinds, and every violation variant names the checks it shows in its description', () => {
    expect(violations.length).toBeGreaterThan(0);
    expect(passes.length).toBeGreaterThan(0);
    for (const [name, , variant] of violations) expect(variant.description, name).toContain(`(checks: ${variant.shows.join(', ')})`);
  });

  it.each(violations)('%s shows its violation through each check it names, at every seed', async (_name, scenario, variant: ViolationVariant) => {
    const failed = await failedChecks(scenario, variant.name);
    const missing = Object.entries(failed).flatMap(([seed, checks]) => variant.shows.filter((check) => !checks.includes(check)).map((check) => `seed ${seed}: ${check} did not fail (failed: ${checks.join(', ') || 'none'})`));
    expect(missing).toEqual([]);
  });

  it.each(passes)('%s passes every check at every seed', async (_name, scenario, variant: PassVariant) => {
    const failed = await failedChecks(scenario, variant.name);
    const broken = Object.entries(failed).flatMap(([seed, checks]) => checks.map((check) => `seed ${seed}: ${check}`));
    expect(broken).toEqual([]);
  });
});
