import { readFile } from 'node:fs/promises';
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

  it('--from-bench: the ceiling is the grant cycles/s a lockstep bench report measured, and says so', async () => {
    const file = 'src/commands/ttl-bench-report.fixture.json';
    const measured = (JSON.parse(await readFile(file, 'utf8')) as { grant: { throughputPerS: number } }).grant.throughputPerS;
    const { code, out } = await runCli('shards', '--grants-per-second', String(4 * measured), '--keys', '20000', '--from-bench', file, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out.at(-1) ?? '{}') as { shardCeilingPerSecond: number; shardCeilingSource: string; shardsNeeded: number; hottestShardUtilisation: number };
    expect(report.shardCeilingPerSecond).toBe(measured);
    expect(report.shardCeilingSource).toContain('measured');
    expect(report.shardsNeeded).toBeGreaterThan(4); // four ceilings' worth never fits four shards: the hottest is above the mean
    expect(report.hottestShardUtilisation).toBeLessThanOrEqual(1);
    const both = await runCli('shards', '--grants-per-second', '10', '--keys', '10', '--from-bench', file, '--shard-ceiling', '5');
    expect(both.code).toBe(2);
    expect(both.err.join('\n')).toMatch(/--from-bench and --shard-ceiling both give the ceiling/);
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

  it('answers the same as `lockstep shards size`, and names a missing sizing flag with exit 2', async () => {
    const args = ['--grants-per-second', '9000', '--keys', '2000', '--shard-ceiling', '1000', '--add', '3', '--class', 'examples/classes/ledger-writes.yaml', '--json'];
    const [plain, size] = [await runCli('shards', ...args), await runCli('shards', 'size', ...args)];
    expect([plain.code, size.code]).toEqual([0, 0]);
    expect(size.out.at(-1)).toBe(plain.out.at(-1));
    const missing = await runCli('shards', '--keys', '10', '--shards', '2');
    expect(missing.code).toBe(2);
    expect(missing.err.join('\n')).toMatch(/--grants-per-second <G>' not specified/);
  });
});

describe('lockstep shards move: bad input, refused before anything is dialled (exit 2)', () => {
  const base = ['shards', 'move', '--from', 'shard-a', '--to', 'shard-b', '--range', 'orders/r-1', '--arbiter', '127.0.0.1:1'];
  it.each([
    [['shards', 'move', '--to', 'shard-b', '--range', 'orders/r-1', '--arbiter', '127.0.0.1:1', '--reason', 'rebalance the shards'], /--from is required/],
    [[...base, '--tls-cert', 'a', '--tls-key', 'b', '--ca', 'c'], /give --reason TEXT to request the move, or --approve ID/],
    [[...base, '--reason', 'rebalance the shards', '--approve', 'x-1', '--tls-cert', 'a', '--tls-key', 'b', '--ca', 'c'], /not both/],
    [[...base, '--reason', 'rebalance the shards'], /--tls-cert, --tls-key and --ca are required: a move needs authenticated operators/],
    [[...base, '--reason', 'rebalance the shards', '--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem', '--ca', '/nonexistent/ca.pem'], /--tls-cert \/nonexistent\/cert.pem: cannot read the file: no such file or directory/],
  ])('%j', async (args, message) => {
    const { code, err } = await runCli(...args);
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(message);
  });
});
