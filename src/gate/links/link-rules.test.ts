import { describe, expect, it } from 'vitest';
import { LinkRules, PASS } from './link-rules.js';

describe('LinkRules', () => {
  it('cuts both ways, or one way, and heals', () => {
    const rules = new LinkRules();
    const heal = rules.cut(['m1'], ['m2', 'm3'], false);
    expect(rules.modeFor('m1', 'm2').drop).toBe(true);
    expect(rules.modeFor('m3', 'm1').drop).toBe(true);
    expect(rules.modeFor('m2', 'm3')).toEqual(PASS); // the control: a link the rule does not name passes
    heal();
    expect(rules.modeFor('m1', 'm2')).toEqual(PASS);
    rules.cut(['m1'], ['m2'], true);
    expect(rules.modeFor('m1', 'm2').drop).toBe(true);
    expect(rules.modeFor('m2', 'm1')).toEqual(PASS);
  });

  it('adds the delays of slow links, and a cut wins over a delay', () => {
    const rules = new LinkRules();
    rules.slow(['a1'], ['m1'], 100, false);
    const second = rules.slow(['a1'], ['m1'], 50, true);
    expect(rules.modeFor('a1', 'm1')).toEqual({ drop: false, delayMs: 150 });
    expect(rules.modeFor('m1', 'a1')).toEqual({ drop: false, delayMs: 100 });
    second();
    expect(rules.modeFor('a1', 'm1').delayMs).toBe(100);
    rules.cut(['m1'], ['a1'], true);
    expect(rules.modeFor('m1', 'a1')).toEqual({ drop: true, delayMs: 0 });
    expect(() => rules.slow(['a1'], ['m1'], -1, false)).toThrow(/non-negative/);
  });

  it('tells its listeners of each heal once', () => {
    const rules = new LinkRules();
    let heals = 0;
    rules.onHeal(() => (heals += 1));
    const heal = rules.cut(['x'], ['y'], false);
    heal();
    heal();
    expect(heals).toBe(1);
  });
});
