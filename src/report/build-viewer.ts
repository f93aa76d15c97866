// `tsx src/report/build-viewer.ts [--force]`: builds the report viewer into its cache (dist/report/viewer.js)
// for `npm run build`, so a packaged install never builds at the first `lockstep run … --html`. Without
// --force it builds only when a viz/ source is newer than the cache. Prints the path and size.
import { stat } from 'node:fs/promises';
import { DEFAULT_VIEWER_PATH, viewerBundle } from './viewer-bundle.js';

const force = process.argv.includes('--force');
if (process.argv.slice(2).some((a) => a !== '--force')) {
  process.stderr.write('usage: tsx src/report/build-viewer.ts [--force]\n');
  process.exit(2);
}
await viewerBundle({ force, progress: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write(`report viewer: ${DEFAULT_VIEWER_PATH} (${(await stat(DEFAULT_VIEWER_PATH)).size} bytes)\n`);
