// Builds the workbench (vite.config.ts) for `lockstep web` and the browser tests, with vite's JS API.
// `lockstep web` builds only when dist/web is missing or older than a source it is built from. A build
// goes to a temporary directory beside the target and is renamed into place, so a server never sees
// half a build (STYLE: nothing half-written).
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';

export const REPO_DIR = REPO_ROOT;
export const DEFAULT_OUT_DIR = join(REPO_DIR, 'dist', 'web');

/** What the bundle is built from, relative to the repository (with the text files src/web imports ?raw). */
export const WEB_SOURCES = ['core', 'sim', 'scenarios', 'viz', 'src/web', 'examples/topologies', 'docs/planner.md', 'vite.config.ts', 'package-lock.json'] as const;

async function newestIn(path: string): Promise<number> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return 0; // a source that does not exist (yet) cannot be newer
  }
  if (!info.isDirectory()) return /\.test\.ts$/.test(path) ? 0 : info.mtimeMs;
  let newest = 0;
  for (const entry of await readdir(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, await newestIn(join(path, entry)));
  }
  return newest;
}

/** The newest modification time among the sources (tests excluded: they are not in the bundle). */
export async function newestSourceMs(repoDir: string = REPO_DIR): Promise<number> {
  const times = await Promise.all(WEB_SOURCES.map((source) => newestIn(join(repoDir, source))));
  return Math.max(...times);
}

/** Why a build is needed, or undefined when outDir's index.html is newer than every source. */
export async function staleReason(outDir: string, repoDir: string = REPO_DIR): Promise<string | undefined> {
  let builtMs: number;
  try {
    builtMs = (await stat(join(outDir, 'index.html'))).mtimeMs;
  } catch {
    return 'no build yet';
  }
  const newest = await newestSourceMs(repoDir);
  return newest > builtMs ? 'a source changed since the last build' : undefined;
}

export interface BuildResult {
  readonly outDir: string;
  readonly files: number;
  readonly bytes: number;
}

async function sizeOf(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await sizeOf(path);
      files += inner.files;
      bytes += inner.bytes;
    } else {
      files += 1;
      bytes += (await stat(path)).size;
    }
  }
  return { files, bytes };
}

/** Builds the workbench into outDir (replacing what is there); vite's own log only for warnings. */
export async function buildWorkbench(outDir: string = DEFAULT_OUT_DIR): Promise<BuildResult> {
  const { build } = await import('vite');
  const target = resolve(outDir);
  const temp = `${target}.tmp-${process.pid}`;
  await rm(temp, { recursive: true, force: true });
  try {
    await build({ configFile: join(REPO_DIR, 'vite.config.ts'), logLevel: 'warn', build: { outDir: temp, emptyOutDir: true } });
    const old = `${target}.old-${process.pid}`;
    await rename(target, old).catch(() => undefined);
    await rename(temp, target);
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return { outDir: target, ...(await sizeOf(target)) };
}
