// The bundled build of `lockstep serve` (servestart), made by bin/js-build.mjs beside the lock's bundles and
// by the same rule (bin/lock-bundle.mjs bundleOptions: etcd3's protos parsed at build time, proto-loader's
// reflection descriptors lazy, no command table): src/cli-serve.ts with its dependencies in one CommonJS
// file, dist/js/src/cli-serve.bundle.cjs, which bin/lockstep.mjs runs with V8's code cache
// (bin/compile-cache.mjs). Loading serve module by module from dist/js was most of its start: ~400 files
// resolved, read and compiled one by one (1.1-1.5 s of a 2-3 s start at load 9-12), and an arbiter restarted after a
// crash is unavailable until it serves (ADR-18, docs/gate.md "Arbiter crash/restart").
import { join } from 'node:path';
import { assertAscii, bundleOptions, ownInputs, recordContents } from './lock-bundle.mjs';

/** The serve bundle, relative to dist/js. */
export const SERVE_BUNDLE = 'src/cli-serve.bundle.cjs';

const MODE = {
  bundle: SERVE_BUNDLE,
  serves: 'lockstep serve',
  stubs: [],
  // DuckDB is a native addon, loaded only with --audit-db (ADR-04): required from node_modules at run time.
  external: ['@duckdb/node-api'],
};

/** Builds the serve bundle into `outDir`; the repository's sources it runs from (relative to `root`). */
export async function buildServeBundle(root, outDir) {
  const { build } = await import('esbuild');
  const result = await build(bundleOptions(root, outDir, 'src/cli-serve.ts', MODE));
  assertAscii(join(outDir, SERVE_BUNDLE));
  recordContents(outDir, { [SERVE_BUNDLE]: result.metafile });
  return ownInputs(result.metafile).sort();
}
