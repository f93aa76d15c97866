// Every command under bad flags: unknown ones, numbers out of range or not numbers at all, outputs that
// cannot be written. Exit 2 before any work starts (no etcd, no build, no run), the flag named, nothing
// on stdout, nothing written.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectRefusal, type Fixtures, fixtures } from './contract-kit.js';

// The assertions are the shared kit's (expectRefusal, contract-kit.ts); every test here must make at least one.
beforeEach(() => {
  expect.hasAssertions();
});

let scratch: Fixtures;
beforeAll(async () => {
  scratch = await fixtures();
});
afterAll(async () => scratch.cleanup());

const CLASS = 'examples/classes/ledger-writes.yaml';
const HISTORY = 'examples/histories/legal/lock-contention.jsonl';

describe('every command refuses a flag it does not have', () => {
  it.each([
    [['list']],
    [['run', 'pause-test']],
    [['replay', 'run.json']],
    [['explore']],
    [['check', HISTORY, '--model', 'lock']],
    [['class', 'check', CLASS]],
    [['ttl', CLASS, '--sessions', '10']],
    [['quorum', '--topology', 'regional-3']],
    [['shards', '--grants-per-second', '10', '--keys', '10', '--shards', '2']],
    [['bench', '--local', '1']],
    [['web']],
    [['demo']],
  ])('%j --bogus', async (argv) => {
    await expectRefusal(scratch, [...argv, '--bogus'], { code: 2, names: ["'--bogus'"] });
  });

  it('lock --bogus (before the -- that starts the command)', async () => {
    await expectRefusal(scratch, ['lock', '--bogus', '--endpoints', '127.0.0.1:2379', '--class', CLASS, '--identity', 'spiffe://x', 'payments/x', '--', 'true'], { code: 2, names: ["'--bogus'"] });
  });

  it('an unknown command', async () => {
    await expectRefusal(scratch, ['frobnicate'], { code: 2, names: ["'frobnicate'"] });
  });
});

describe('numbers out of range, or not numbers', () => {
  it.each([
    ['check --budget', ['check', HISTORY, '--model', 'lock', '--budget', '1e309'], '--budget'],
    ['check --budget 0', ['check', HISTORY, '--model', 'lock', '--budget', '0'], '--budget'],
    ['class check --now', ['class', 'check', CLASS, '--now', '2026-13-45'], '--now'],
    ['ttl --sessions', ['ttl', CLASS, '--sessions', '1e309'], '--sessions'],
    ['ttl --sessions -1', ['ttl', CLASS, '--sessions', '-1'], '--sessions'],
    ['ttl --holds-per-session', ['ttl', CLASS, '--sessions', '10', '--holds-per-session', 'abc'], '--holds-per-session'],
    ['ttl --runs', ['ttl', CLASS, '--sessions', '10', '--runs', '0'], '--runs'],
    ['ttl --rtt', ['ttl', CLASS, '--sessions', '10', '--rtt', '1e309'], '--rtt'],
    ['ttl --format', ['ttl', CLASS, '--sessions', '10', '--format', 'xml'], '--format'],
    ['ttl --sweep', ['ttl', CLASS, '--sessions', '10', '--sweep', 'ttl=1..1e9'], '--sweep'],
    ['quorum --runs', ['quorum', '--topology', 'regional-3', '--runs', '1e309'], '--runs'],
    ['quorum --samples', ['quorum', '--topology', 'regional-3', '--samples', '5'], '--samples'],
    ['quorum --topology', ['quorum', '--topology', 'nope'], '--topology'],
    ['shards --grants-per-second', ['shards', '--grants-per-second', '-1', '--keys', '10', '--shards', '2'], '--grants-per-second'],
    ['shards --keys', ['shards', '--grants-per-second', '10', '--keys', '1e309', '--shards', '2'], '--keys'],
    ['shards --shards', ['shards', '--grants-per-second', '10', '--keys', '10', '--shards', '0'], '--shards'],
    ['explore --runs', ['explore', '--runs', '0'], '--runs'],
    ['explore --runs 1e309', ['explore', '--runs', '1e309'], '--runs'],
    ['explore --seed', ['explore', '--seed', '-1'], '--seed'],
    ['explore --workers', ['explore', '--workers', '0'], '--workers'],
    ['explore --shard', ['explore', '--shard', '3/2'], '--shard'],
    ['explore --shrink-budget', ['explore', '--shrink-budget', 'abc'], '--shrink-budget'],
    ['explore --mutant', ['explore', '--mutant', 'nope'], '"nope"'],
    ['explore --scenario', ['explore', '--scenario', 'nope'], '"nope"'],
    ['bench --local', ['bench', '--local', '2'], '--local'],
    ['bench --duration', ['bench', '--local', '1', '--duration', '1ms'], '--duration'],
    ['bench --concurrency', ['bench', '--local', '1', '--concurrency', '0'], '--concurrency'],
    ['bench --sessions', ['bench', '--local', '1', '--sessions', '1e309'], '--sessions'],
    ['web --port', ['web', '--port', '99999'], '--port'],
    ['web --port abc', ['web', '--port', 'abc'], '--port'],
    ['demo --members', ['demo', '--members', '2'], '--members'],
    ['demo --processes', ['demo', '--processes', '1e309'], '--processes'],
    ['lock --wait', ['lock', '--endpoints', '127.0.0.1:2379', '--class', CLASS, '--identity', 'spiffe://x', '--wait', '99999h', 'payments/x', '--', 'true'], '--wait'],
  ])('%s', async (_what, argv, flag) => {
    await expectRefusal(scratch, argv, { code: 2, names: [flag] });
  });
});

describe('outputs that cannot be written are refused before the work', () => {
  it.each([
    ['a directory', () => scratch.directory],
    ['an empty name', () => ''],
    ['a path under a file', () => join(scratch.file, 'out.json')],
  ])('bench --out and --profile into %s (before etcd starts)', async (_what, path) => {
    for (const flag of ['--out', '--profile']) await expectRefusal(scratch, ['bench', '--local', '1', flag, path()], { code: 2, names: [flag] });
  });

  it('explore --out-dir under a file (before the first run)', async () => {
    await expectRefusal(scratch, ['explore', '--runs', '1', '--out-dir', join(scratch.file, 'explore')], { code: 2, names: ['--out-dir', scratch.file], says: /is a file, not a directory/ });
  });
});
