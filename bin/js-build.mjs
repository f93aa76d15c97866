// The compiled JavaScript the `lockstep` command runs (issue 16). Compiling TypeScript at every start (tsx)
// cost 1-2.5 s per command; esbuild transpiles each source file once, file for file, into dist/js/ (same
// tree, so relative imports hold), at `npm ci` (package.json's prepare) and again whenever a source is
// newer than the build or a source file was added or removed: a stale build is never run. The check is
// one stat per source file (about 7 ms for the ~400 files; `lockstep lock` checks its own inputs alone);
// the rebuild about a second.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildLockBundle, lockBundleFor } from './lock-bundle.mjs';
import { SERVE_BUNDLE, buildServeBundle } from './serve-bundle.mjs';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = join(REPO_ROOT, 'dist', 'js');
/** The TypeScript the CLI, its workers and its child processes load (tests are not compiled). */
const SOURCE_DIRS = ['core', 'sim', 'scenarios', 'src', 'bench', 'viz'];
const INFO_FILE = 'build-info.json';

/** Every non-test .ts file under the source folders, relative to the repository, and the newest mtime. */
export function sourceState(root = REPO_ROOT) {
  const files = [];
  let newestMs = 0;
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts') || entry.name.endsWith('.d.ts')) continue;
      const path = join(entry.parentPath, entry.name);
      files.push(relative(root, path));
      newestMs = Math.max(newestMs, statSync(path).mtimeMs);
    }
  }
  return { files: files.sort(), newestMs };
}

/** Why dist/js cannot be run as it is, or undefined when it is current. */
export function staleReason(state = sourceState(), outDir = OUT_DIR) {
  let info;
  try {
    info = JSON.parse(readFileSync(join(outDir, INFO_FILE), 'utf8'));
  } catch {
    return 'no build yet';
  }
  if (info.fileCount !== state.files.length) return `${state.files.length} source files, the build has ${info.fileCount}`;
  if (state.newestMs > info.newestMs) return 'a source file changed since the build';
  return undefined;
}

/**
 * Transpiles every source into a fresh folder and swaps it in with renames, so a process starting meanwhile
 * sees the old tree or the new one, never half of one. Two builders racing both produce a complete tree.
 */
export async function buildJs(state = sourceState()) {
  const { transform } = await import('esbuild');
  const temp = `${OUT_DIR}.tmp-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  await Promise.all(
    state.files.map(async (file) => {
      const source = readFileSync(join(REPO_ROOT, file), 'utf8');
      // Keep names and line numbers readable in a stack trace: no minification, an inline source map.
      const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: join(REPO_ROOT, file) });
      const out = join(temp, file.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, code);
    }),
  );
  // `lockstep lock` (issue 30) and `lockstep serve` (servestart) run from bundled files.
  const [lockInputs, serveInputs] = await Promise.all([buildLockBundle(REPO_ROOT, temp), buildServeBundle(REPO_ROOT, temp)]);
  writeFileSync(join(temp, INFO_FILE), `${JSON.stringify({ fileCount: state.files.length, newestMs: state.newestMs, lockInputs, serveInputs })}\n`);
  const old = `${OUT_DIR}.old-${process.pid}`;
  try {
    renameSync(OUT_DIR, old);
  } catch {
    // No earlier build, or another builder moved it first.
  }
  try {
    renameSync(temp, OUT_DIR);
  } catch {
    // Another builder's equally fresh tree landed first: keep it.
    rmSync(temp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/**
 * Why `lockstep <command>` (lock or serve) cannot run as built, or undefined when it can: checks only the
 * sources the command runs from (its bundles' inputs, and the lock's fence supervisor's, which the build
 * lists), one stat each rather than a walk of every source folder (29-56 ms under load, issue 30). A changed
 * or removed one is stale; a file the command does not run from is no reason, and neither is an added one (a
 * source that starts importing it changed).
 */
export function bundleStaleReason(outDir = OUT_DIR, root = REPO_ROOT, command = 'lock') {
  let info;
  try {
    info = JSON.parse(readFileSync(join(outDir, INFO_FILE), 'utf8'));
  } catch {
    return 'no build yet';
  }
  const inputs = info[`${command}Inputs`];
  if (!Array.isArray(inputs)) return `the build lists no ${command} inputs`;
  for (const file of inputs) {
    let mtimeMs;
    try {
      ({ mtimeMs } = statSync(join(root, file)));
    } catch {
      return `${file}, an input of the ${command} bundle, is gone`;
    }
    if (mtimeMs > info.newestMs) return `${file} changed since the build`;
  }
  return undefined;
}

/**
 * The compiled CLI's URL, building it first when missing or stale. `lockstep lock` (`command`, with `args`)
 * gets its mode's bundle (bin/lock-bundle.mjs, issue 30), `lockstep serve` its own (bin/serve-bundle.mjs),
 * each exporting the same main().
 */
export async function currentCli(command, args = []) {
  const bundle = command === 'lock' ? lockBundleFor(args) : command === 'serve' ? SERVE_BUNDLE : undefined;
  const entry = join(OUT_DIR, bundle ?? join('src', 'cli.js'));
  // A packaged install (deploy/image/Containerfile) ships dist/js without the TypeScript it came from, on a
  // read-only file system: there is nothing to compare with, and nothing could be rebuilt. Run it as built.
  if (!existsSync(join(REPO_ROOT, 'src')) && existsSync(join(OUT_DIR, INFO_FILE))) return pathToFileURL(entry);
  if (bundle !== undefined && bundleStaleReason(OUT_DIR, REPO_ROOT, command) === undefined) return pathToFileURL(entry);
  const state = sourceState();
  if (staleReason(state) !== undefined || bundle !== undefined) await buildJs(state);
  return pathToFileURL(entry);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const state = sourceState();
  await buildJs(state);
  process.stdout.write(`dist/js: ${state.files.length} files compiled in ${Math.round(performance.now() - started)} ms\n`);
}
