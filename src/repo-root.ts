// Where this code runs from (issue 16): the TypeScript sources (tests, tsx) or their compiled copy in
// dist/js/ (bin/js-build.mjs), a tree one level deeper. Files next to the repository root (examples/,
// viz/, bin/) and the entry files of child processes and worker threads are found from here, so each
// works from either tree.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = fileURLToPath(import.meta.url);
/** True when this is dist/js's compiled copy (bin/lockstep.mjs runs it), false under vitest or tsx. */
export const RUNNING_COMPILED = HERE.endsWith('.js');
export const REPO_ROOT = RUNNING_COMPILED ? join(dirname(HERE), '..', '..', '..') : join(dirname(HERE), '..');

/**
 * The entry of a child process or worker thread: `compiled` (a source path such as 'src/explore/worker.ts')
 * as dist/js compiled it when this process runs compiled, else `source`, which loads the TypeScript
 * through tsx. A compiled process starts its children compiled: no tsx at their start either.
 */
export function entryUrl(compiled: string, source: URL): URL {
  return RUNNING_COMPILED ? pathToFileURL(join(REPO_ROOT, 'dist', 'js', compiled.replace(/\.ts$/, '.js'))) : source;
}
