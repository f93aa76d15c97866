// bin/js-build.mjs: the compiled tree bin/lockstep.mjs runs is never stale (issue 16).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_DIR, REPO_ROOT, sourceState, staleReason } from '../../bin/js-build.mjs';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-js-build-'));
  await writeFile(join(dir, 'build-info.json'), JSON.stringify({ fileCount: 2, newestMs: 1000 }));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the compiled CLI', () => {
  it('is current after the global setup, and every source has its compiled file', () => {
    const state = sourceState();
    expect(state.files.length).toBeGreaterThan(100);
    expect(state.files).toContain('src/cli.ts');
    expect(state.files.some((f) => f.endsWith('.test.ts'))).toBe(false);
    expect(staleReason(state)).toBeUndefined();
  });

  it('is stale when a source is newer than the build, or a source was added or removed', () => {
    expect(staleReason({ files: ['a.ts', 'b.ts'], newestMs: 1000 }, dir)).toBeUndefined();
    expect(staleReason({ files: ['a.ts', 'b.ts'], newestMs: 1001 }, dir)).toMatch(/changed since the build/);
    expect(staleReason({ files: ['a.ts', 'b.ts', 'c.ts'], newestMs: 900 }, dir)).toMatch(/3 source files, the build has 2/);
    expect(staleReason({ files: ['a.ts'], newestMs: 900 }, dir)).toMatch(/1 source files, the build has 2/);
    expect(staleReason({ files: [], newestMs: 0 }, join(dir, 'none'))).toBe('no build yet');
  });

  it('runs from dist/js, knowing it runs compiled, with the repository root found from there', () => {
    // Compiled, the code knows it is (children start compiled) and still finds the repository's root.
    const probe = `const { main } = await import(${JSON.stringify(`${OUT_DIR}/src/cli.js`)}); const { RUNNING_COMPILED, REPO_ROOT } = await import(${JSON.stringify(`${OUT_DIR}/src/repo-root.js`)}); process.stdout.write(JSON.stringify({ RUNNING_COMPILED, REPO_ROOT, main: typeof main }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ RUNNING_COMPILED: true, REPO_ROOT, main: 'function' });
  });

  it('holds every compiled module a compiled module imports', () => {
    // The build once left out viz/ (src/report/html.ts imports viz/report/page-ids.ts): `lockstep run`
    // failed with ERR_MODULE_NOT_FOUND while every command's --help worked.
    const missing: string[] = [];
    const files = readdirSync(OUT_DIR, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.js'));
    for (const entry of files) {
      const path = join(entry.parentPath, entry.name);
      const code = readFileSync(path, 'utf8');
      for (const match of code.matchAll(/(?:from\s*|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        // A compiled source is imported as .js; other files (bin/*.mjs in the tests' setup, vite's ?raw) are not compiled.
        if (!(match[1] as string).endsWith('.js')) continue;
        const target = resolve(dirname(path), match[1] as string);
        if (!existsSync(target)) missing.push(`${path.slice(OUT_DIR.length + 1)} imports ${match[1]}`);
      }
    }
    expect(files.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
