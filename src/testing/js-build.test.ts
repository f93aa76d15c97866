// bin/js-build.mjs: the compiled tree bin/lockstep.mjs runs is never stale (issue 16).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

  it('holds every file a compiled file imports (a source folder left out of the build fails here)', () => {
    // src/web is the browser workbench, which vite builds (it imports ?raw assets and worker URLs); vitest's
    // global setup runs only under vitest, from its source.
    const missing: string[] = [];
    for (const file of sourceState().files.filter((f) => !f.startsWith('src/web/') && f !== 'src/testing/build-js.global-setup.ts')) {
      const compiled = join(OUT_DIR, file.replace(/\.ts$/, '.js'));
      const code = readFileSync(compiled, 'utf8');
      for (const [, specifier] of code.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"?]+)['"]/g)) {
        if (!existsSync(resolve(dirname(compiled), specifier!))) missing.push(`${file} imports ${specifier}`);
      }
    }
    expect(missing).toEqual([]);
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
});
