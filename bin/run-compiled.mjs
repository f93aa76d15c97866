#!/usr/bin/env node
// `node bin/run-compiled.mjs bench/sim-speed.ts [args...]`: runs a TypeScript entry from dist/js (built
// first if stale, bin/js-build.mjs), as bin/lockstep.mjs runs the CLI. For the benchmarks (issue 16):
// through tsx, its loader thread and the compile cost ~50 MB of resident memory and the first seconds,
// which a memory benchmark would report as the simulator's.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OUT_DIR, buildJs, sourceState, staleReason } from './js-build.mjs';

const [entry, ...args] = process.argv.slice(2);
if (entry === undefined || !entry.endsWith('.ts')) {
  process.stderr.write('usage: node bin/run-compiled.mjs <source.ts> [args...], e.g. node bin/run-compiled.mjs bench/sim-speed.ts --minutes 60\n');
  process.exit(2);
}
const state = sourceState();
if (staleReason(state) !== undefined) await buildJs(state);
const compiled = join(OUT_DIR, entry.replace(/\.ts$/, '.js'));
// The entry reads its arguments from process.argv, as if started directly.
process.argv = [process.argv[0] ?? 'node', compiled, ...args];
await import(pathToFileURL(compiled).href);
