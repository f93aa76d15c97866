// bin/compile-cache.mjs: the lock bundle runs with V8's code cache of its last run (issue 30), and a cache
// that does not belong to the file is never used for it.
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireWithCodeCache } from '../../bin/compile-cache.mjs';
import { MODULE_WRAPPER } from '../../bin/lock-bundle.mjs';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-compile-cache-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** The cache file beside `file` (its name also carries the node version and flags). */
function cacheOf(file: string): string | undefined {
  const name = readdirSync(dir).find((f) => f.startsWith(`${basename(file)}.`) && f.endsWith('.v8-cache'));
  return name === undefined ? undefined : join(dir, name);
}

/** `body` written as bin/lock-bundle.mjs writes a bundle: wrapped in MODULE_WRAPPER. */
function writeModule(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `${MODULE_WRAPPER[0]}${body}${MODULE_WRAPPER[1]}`);
  return file;
}

describe('requireWithCodeCache', () => {
  it('runs a CommonJS file with its own require and __dirname, and writes its cache once', () => {
    const file = writeModule('m.cjs', "exports.answer = () => 41 + require('node:path').basename(__dirname).length * 0 + 1;");
    const first = requireWithCodeCache(file);
    expect((first.exports.answer as () => number)()).toBe(42);
    expect(cacheOf(file)).toBeUndefined();
    first.saveCache();
    const cache = readFileSync(cacheOf(file) as string);
    expect(cache.length).toBeGreaterThan(0);
    const second = requireWithCodeCache(file);
    expect((second.exports.answer as () => number)()).toBe(42);
    second.saveCache(); // accepted: nothing to rewrite
    expect(readFileSync(cacheOf(file) as string).equals(cache)).toBe(true);
  });

  it('runs the file as it is when the cache is not its own (made for other source), and replaces that cache', () => {
    const file = writeModule('m.cjs', 'exports.value = 1;');
    requireWithCodeCache(file).saveCache();
    const cacheFile = cacheOf(file) as string;
    const old = readFileSync(cacheFile);
    writeModule('m.cjs', 'exports.value = "the source changed";');
    const loaded = requireWithCodeCache(file);
    expect(loaded.exports.value).toBe('the source changed');
    loaded.saveCache();
    expect(readFileSync(cacheFile).equals(old)).toBe(false);
  });

  it('writes no cache when the file was replaced while it ran (a rebuild): the cache would be of the old one', () => {
    const file = writeModule('m.cjs', 'exports.value = 1;');
    const loaded = requireWithCodeCache(file);
    renameSync(writeModule('next.cjs', 'exports.value = 2;'), file); // as bin/js-build.mjs swaps in a new tree
    loaded.saveCache();
    expect(cacheOf(file)).toBeUndefined();
  });
});
