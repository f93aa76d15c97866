// V8's code cache for the lock bundle (bin/lock-bundle.mjs, issue 30). Node 20 caches the compiled code of
// its own modules but not of ours (module.enableCompileCache is Node 22's), so a bundle is run here
// through vm.Script with the cache of its last run: the functions V8 compiled then (the lock command's
// start-up path) are not compiled again. The cache sits beside the file in dist/js, so a rebuild, which
// swaps in a new tree, never meets an old cache; V8 rejects a cache that does not fit the source, and the
// file is then run as if there were none and the cache rewritten. A read-only install runs without one.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

/**
 * Runs `file`, a CommonJS module as bin/lock-bundle.mjs writes it (its text one function expression taking
 * exports, require, module, __filename and __dirname, in ASCII), with its code cache
 * (`file`.<node version and flags>.v8-cache). `saveCache` (call it when the work is done, so the cache
 * holds what ran) writes a new cache when there was none or V8 rejected it; it never throws.
 */
export function requireWithCodeCache(file) {
  // V8 rejects a cache made under other flags or another V8: one cache per node version and flags, so that
  // runs with and without, say, --cpu-prof do not rewrite each other's at every start.
  const flags = createHash('sha256').update(`${process.version} ${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`).digest('hex').slice(0, 12);
  const cacheFile = `${file}.${flags}.v8-cache`;
  const built = statSync(file);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache yet: this run makes it.
  }
  // The file is one function expression in ASCII (bin/lock-bundle.mjs's MODULE_WRAPPER; its build checks
  // the bytes): read as latin1 it becomes a one-byte string at once, no UTF-8 decoding, and V8 compiles it as
  // read, with no wrapped copy. A 2 MB bundle read as UTF-8 (it held non-ASCII comments) and wrapped was
  // two 4 MB two-byte strings: ~1,000 page faults more per lock (issue 30).
  const source = readFileSync(file, 'latin1');
  const script = new vm.Script(source, { filename: file, ...(cachedData === undefined ? {} : { cachedData }) });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const saveCache = () => {
    if (cachedData !== undefined && script.cachedDataRejected !== true) return;
    const temp = `${cacheFile}.tmp-${process.pid}`;
    try {
      // A rebuild may have swapped in a new file meanwhile: this cache is of the old one.
      const now = statSync(file);
      if (now.ino !== built.ino || now.mtimeMs !== built.mtimeMs) return;
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, cacheFile);
    } catch {
      rmSync(temp, { force: true }); // a read-only install: run without a cache
    }
  };
  return { exports: module.exports, saveCache };
}
