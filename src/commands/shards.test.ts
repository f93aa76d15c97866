import { describe, expect, it } from 'vitest';
import { main } from '../cli.js';
import type { CliIo } from '../cli-io.js';

function capture(): CliIo & { out_: string[]; err_: string[] } {
  const out_: string[] = [];
  const err_: string[] = [];
  return { out_, err_, out: (t) => out_.push(t), err: (t) => err_.push(t) };
}

describe('lockstep shards', () => {
  it('sizes shards from a ceiling and reports the spread, the moved fraction and the drain window', async () => {
    const io = capture();
    const code = await main(['shards', '--grants-per-second', '9000', '--keys', '20000', '--shard-ceiling', '1000', '--add', '1', '--class', 'examples/classes/ledger-writes.yaml', '--json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(io.out_.at(-1) ?? '{}') as Record<string, number>;
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
    const io = capture();
    expect(await main(['shards', ...args], io)).toBe(2);
    expect(io.err_.join('\n')).toMatch(message);
  });
});
