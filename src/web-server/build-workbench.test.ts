import { mkdir, mkdtemp, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newestSourceMs, REPO_DIR, staleReason, WEB_SOURCES } from './build-workbench.js';

async function fakeRepo(): Promise<{ repo: string; out: string }> {
  const repo = await mkdtemp(join(tmpdir(), 'lockstep-build-'));
  await mkdir(join(repo, 'core', 'tokens'), { recursive: true });
  await mkdir(join(repo, 'src', 'web'), { recursive: true });
  await writeFile(join(repo, 'core', 'tokens', 'token.ts'), 'export {};');
  await writeFile(join(repo, 'src', 'web', 'main.ts'), 'export {};');
  await writeFile(join(repo, 'vite.config.ts'), 'export default {};');
  const out = join(repo, 'dist', 'web');
  await mkdir(out, { recursive: true });
  return { repo, out };
}

const at = (seconds: number) => new Date(1_700_000_000_000 + seconds * 1_000);

describe('when lockstep web rebuilds', () => {
  it('builds when there is no build yet', async () => {
    const { repo, out } = await fakeRepo();
    expect(await staleReason(out, repo)).toMatch(/no build yet/);
  });

  it('serves a build newer than every source, and rebuilds after a source (however deep) changes', async () => {
    const { repo, out } = await fakeRepo();
    for (const file of ['core/tokens/token.ts', 'src/web/main.ts', 'vite.config.ts']) await utimes(join(repo, file), at(0), at(0));
    await writeFile(join(out, 'index.html'), '<!doctype html>');
    await utimes(join(out, 'index.html'), at(10), at(10));
    expect(await staleReason(out, repo)).toBeUndefined();
    await utimes(join(repo, 'core/tokens/token.ts'), at(20), at(20));
    expect(await staleReason(out, repo)).toMatch(/a source changed/);
  });

  it('ignores test files, which are not in the bundle, and folders outside the sources', async () => {
    const { repo } = await fakeRepo();
    for (const file of ['core/tokens/token.ts', 'src/web/main.ts', 'vite.config.ts']) await utimes(join(repo, file), at(0), at(0));
    const before = await newestSourceMs(repo);
    await writeFile(join(repo, 'core', 'tokens', 'token.test.ts'), 'test');
    await mkdir(join(repo, 'bench'));
    await writeFile(join(repo, 'bench', 'x.ts'), 'x');
    expect(await newestSourceMs(repo)).toBe(before);
    expect(WEB_SOURCES).not.toContain('bench');
  });

  it('counts every file the app bundles as text (a ?raw import) among the sources, so editing one rebuilds', async () => {
    const files = (await readdir(join(REPO_DIR, 'src', 'web'), { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const raw: string[] = [];
    for (const file of files) {
      const text = await readFile(join(REPO_DIR, 'src', 'web', file), 'utf8');
      for (const m of text.matchAll(/from '([^']+)\?raw'/g)) raw.push(relative(REPO_DIR, resolve(dirname(join(REPO_DIR, 'src', 'web', file)), m[1]!)));
    }
    expect(raw).toContain('docs/planner.md');
    const covered = (path: string): boolean => WEB_SOURCES.some((s) => path === s || path.startsWith(`${s}/`));
    expect(raw.filter((path) => !covered(path))).toEqual([]);
  });
});
