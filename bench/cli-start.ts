// `npm run bench:cli -- [--runs N] [--json]`: how fast the `lockstep` command starts (issue 16). Medians of N
// runs (default 10) of `node -e 0`, `node bin/lockstep.mjs --version` and `lockstep class check` of one
// file, and the ratio of each to `node -e 0`: the ratio, not the absolute time, is the figure (the
// machine is shared; node's own start is the yardstick). Goals: --version within 4x, class check within 6x.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { percentile } from '../core/planner/percentiles.js';
import { REPO_ROOT } from '../src/repo-root.js';

const BIN = join(REPO_ROOT, 'bin', 'lockstep.mjs');
const CLASS_FILE = join(REPO_ROOT, 'examples', 'classes', 'ledger-writes.yaml');

const START_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  node: ['-e', '0'],
  version: [BIN, '--version'],
  classCheck: [BIN, 'class', 'check', '--now', '2026-12-01', CLASS_FILE],
};

function wallMs(args: readonly string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(run.status)}`);
  return ms;
}

function main(): void {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, json: { type: 'boolean', default: false } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs ${values.runs}: give a whole number of runs, e.g. --runs 10`);
  wallMs(START_COMMANDS.version ?? []); // a first run builds dist/js if it is stale; it is not measured
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(START_COMMANDS).map((name) => [name, []]));
  // Interleaved, so a burst of load on the shared machine hits every command alike.
  for (let i = 0; i < runs; i += 1) for (const [name, args] of Object.entries(START_COMMANDS)) samples[name]?.push(wallMs(args));
  const medians = Object.fromEntries(Object.entries(samples).map(([name, ms]) => [name, percentile(ms, 0.5)]));
  const nodeMs = medians.node ?? 1;
  const report = { runs, medianMs: medians, ratioToNode: { version: (medians.version ?? 0) / nodeMs, classCheck: (medians.classCheck ?? 0) / nodeMs }, goals: { version: 4, classCheck: 6 } };
  if (values.json === true) process.stdout.write(`${JSON.stringify(report)}\n`);
  else for (const [name, ms] of Object.entries(medians)) process.stdout.write(`${name.padEnd(11)} ${ms.toFixed(0).padStart(6)} ms median${name === 'node' ? '' : `, ${(ms / nodeMs).toFixed(2)}x node -e 0`}\n`);
}

main();
