import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

describe('lockstep shards', () => {
  it('sizes shards from a ceiling and reports the spread, the moved fraction and the drain window', async () => {
    const { code, out } = await runCli('shards', '--grants-per-second', '9000', '--keys', '20000', '--shard-ceiling', '1000', '--add', '1', '--class', 'examples/classes/ledger-writes.yaml', '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out.at(-1) ?? '{}') as Record<string, number>;
    expect(report.shardsNeeded).toBeGreaterThanOrEqual(9);
    expect(report.hottestShardGrantsPerSecond).toBeLessThanOrEqual(1000);
    expect(Math.abs((report.movedFraction ?? 0) - 1 / ((report.shards ?? 0) + 1))).toBeLessThan(0.2 / ((report.shards ?? 0) + 1));
    expect(report.drainSecondsMax).toBe(10 + 1.5); // ledger-writes: entity tier, ttlSeconds 10
  });

  it.each([
    [['--grants-per-second', '-5', '--keys', '10', '--shards', '2'], /--grants-per-second "-5" must be a positive number/],
    [['--grants-per-second', '5', '--keys', '2.5', '--shards', '2'], /--keys "2.5" must be a positive whole number/],
    [['--grants-per-second', '5', '--keys', '10'], /give --shard-ceiling W/],
  ])('refuses %j with exit 2, naming the flag', async (args, message) => {
    const { code, err } = await runCli('shards', ...args);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(message);
  });
});
