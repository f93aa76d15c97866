#!/usr/bin/env node
// The `lockstep` command: runs src/cli.ts compiled to dist/js (bin/js-build.mjs), which `npm ci` builds and
// this entry rebuilds first whenever a source is newer, so `npx lockstep` works straight after `npm ci` and
// never runs a stale build. Issue 16: compiling through tsx at each start cost 1-2.5 s.
import { fileURLToPath } from 'node:url';
import { requireWithCodeCache } from './compile-cache.mjs';
import { currentCli } from './js-build.mjs';

// `lockstep lock` runs from its mode's bundle with V8's code cache (bin/lock-bundle.mjs, issue 30); the rest from dist/js.
const cli = await currentCli(process.argv[2], process.argv.slice(3));
const bundle = cli.pathname.endsWith('.cjs') ? requireWithCodeCache(fileURLToPath(cli)) : undefined;
const { main } = bundle === undefined ? await import(cli.href) : bundle.exports;
let exitCode = 0;
// A reader that went away (`lockstep check ... | head`) is not an error of the command: exit with its code.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => process.exit(exitCode));
// `lockstep serve` runs until stopped, and a crashed one never exits: it saves its cache once it serves (servestart).
exitCode = await main(process.argv.slice(2), undefined, () => bundle?.saveCache());
// Exit as soon as the command is done: a request still waiting on an unreachable etcd must not keep the
// process alive. But first let stdout and stderr drain: writes to a pipe are asynchronous, and exiting at
// once cut `lockstep class check ... | tail` off after the first few hundred lines.
const drained = (stream) => new Promise((done) => stream.write('', () => done()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
// The code cache is made by a lock that ran its command (`--` given, exit 0), so that it holds the whole
// lock path: a `lock --help` or a refused lock that made it first kept every later lock compiling the etcd
// client's start (a 0.32 MB cache where a lock's is 1.44 MB). Those runs go without one (issue 30).
if (exitCode === 0 && process.argv.includes('--')) bundle?.saveCache();
process.exit(exitCode);
