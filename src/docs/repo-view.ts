// The two repositories the doc checks read (doc-references.ts, design-status.ts): this clone, from the
// file system, and a made-up one, from a table of paths, on which the rules' own tests show each of
// them passing and failing.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoView } from './doc-references.js';

/** The repository under `root`, read from disk. */
export function fileSystemRepo(root: string): RepoView {
  return {
    kind: (path) => {
      try {
        return statSync(join(root, path)).isDirectory() ? 'dir' : 'file';
      } catch {
        return undefined;
      }
    },
    read: (path) => readFileSync(join(root, path), 'utf8'),
    list: (dir) => readdirSync(join(root, dir)),
  };
}

/** A made-up repository: file paths to contents; folders are implied by the paths. */
export function madeUpRepo(files: Record<string, string>): RepoView {
  const paths = Object.keys(files);
  return {
    kind: (path) => (path in files ? 'file' : paths.some((p) => p.startsWith(`${path.replace(/\/$/, '')}/`)) ? 'dir' : undefined),
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`no file ${path}`);
      return text;
    },
    list: (dir) => paths.filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1).split('/')[0] ?? ''),
  };
}
