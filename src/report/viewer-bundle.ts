// The report viewer: viz/report/main.ts (the timeline and everything it imports, d3 and zod included)
// bundled by vite's JS API as one IIFE script, which `lockstep run … --html` inlines into the page. It is
// built on demand into a cache (dist/report/viewer.js) and rebuilt when a viz/ source is newer, so the
// report never shows a stale viewer and the common case costs a file read. Built into a private
// directory first and renamed into place: two runs building at once each leave a whole file.
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../repo-root.js';

export { REPO_ROOT };
export const VIEWER_ENTRY = join(REPO_ROOT, 'viz', 'report', 'main.ts');
export const DEFAULT_VIEWER_PATH = join(REPO_ROOT, 'dist', 'report', 'viewer.js');
/** The sources whose change makes the cached viewer stale: the browser code, and this builder and the pinned packages. */
const SOURCE_DIRS = [join(REPO_ROOT, 'viz')];
const SOURCE_FILES = [fileURLToPath(import.meta.url), join(REPO_ROOT, 'package-lock.json')];

export interface ViewerBundleOptions {
  /** Where the built viewer is cached. Default dist/report/viewer.js. */
  readonly path?: string;
  /** Build even when the cache is fresh. */
  readonly force?: boolean;
  /** Told when a build starts and ends (the CLI prints it on stderr). */
  readonly progress?: (line: string) => void;
}

/** The viewer script's text, built first when missing or older than a viz/ source. */
export async function viewerBundle(options: ViewerBundleOptions = {}): Promise<string> {
  const path = options.path ?? DEFAULT_VIEWER_PATH;
  if (options.force === true || (await isStale(path))) await buildViewer(path, options.progress ?? (() => {}));
  return readFile(path, 'utf8');
}

export async function isStale(path: string): Promise<boolean> {
  const built = await mtimeMs(path);
  if (built === undefined) return true;
  return (await newestSourceMs()) > built;
}

async function buildViewer(path: string, progress: (line: string) => void): Promise<void> {
  progress(`building the report viewer… (${relative(REPO_ROOT, VIEWER_ENTRY)} → ${relative(REPO_ROOT, path) || path})`);
  const { build } = await import('vite');
  const outDir = join(dirname(path), `.build-${process.pid}-${Date.now()}`);
  await mkdir(outDir, { recursive: true });
  try {
    await build({
      configFile: false,
      root: REPO_ROOT,
      publicDir: false,
      logLevel: 'warn',
      mode: 'production',
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      build: {
        outDir,
        emptyOutDir: true,
        write: true,
        minify: true,
        sourcemap: false,
        copyPublicDir: false,
        reportCompressedSize: false,
        lib: { entry: VIEWER_ENTRY, formats: ['iife'], name: 'LockstepReport', fileName: () => 'viewer.js' },
      },
    });
    await rename(join(outDir, 'viewer.js'), path);
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
  progress('built the report viewer');
}

async function newestSourceMs(): Promise<number> {
  let newest = 0;
  for (const file of SOURCE_FILES) newest = Math.max(newest, (await mtimeMs(file)) ?? 0);
  for (const dir of SOURCE_DIRS) {
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
      newest = Math.max(newest, (await mtimeMs(join(entry.parentPath, entry.name))) ?? 0);
    }
  }
  return newest;
}

async function mtimeMs(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}
