// bin/js-build.mjs: the compiled tree bin/lockstep.mjs runs is never stale (issue 16).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_DIR, REPO_ROOT, bundleStaleReason, currentCli, sourceState, staleReason } from '../../bin/js-build.mjs';
import { BUNDLE_CONTENTS, lockBundleFor } from '../../bin/lock-bundle.mjs';
import { SERVE_BUNDLE } from '../../bin/serve-bundle.mjs';

/** The modules with code in `bundle`, as the build lists them (a minified bundle names none itself). */
function bundleModules(bundle: string): string[] {
  return (JSON.parse(readFileSync(join(OUT_DIR, BUNDLE_CONTENTS), 'utf8')) as Record<string, string[]>)[bundle] ?? [];
}

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

describe("`lockstep lock`'s own staleness check (issue 30)", () => {
  it('lists the sources the lock runs from: the command, both modes, the supervisor; no other command', () => {
    const { lockInputs } = JSON.parse(readFileSync(join(OUT_DIR, 'build-info.json'), 'utf8')) as { lockInputs: string[] };
    for (const file of ['src/cli-lock.ts', 'src/commands/lock.ts', 'src/lock/local-arbiter.ts', 'src/lock/remote-arbiter.ts', 'src/lock/fence-supervisor-main.ts', 'src/lock/fence-supervisor.ts', 'core/arbiter/arbiter.ts']) {
      expect(lockInputs).toContain(file);
    }
    expect(lockInputs).not.toContain('src/commands/serve.ts');
    expect(lockInputs.some((file) => file.includes('node_modules'))).toBe(false);
    expect(bundleStaleReason()).toBeUndefined();
  });

  it('is stale when an input of the lock changed or is gone, and not when a file outside it changed', async () => {
    const root = await mkdtemp(join(tmpdir(), 'lockstep-lock-stale-'));
    try {
      for (const file of ['in.ts', 'out.ts']) await writeFile(join(root, file), '');
      const builtMs = Date.now();
      utimesSync(join(root, 'in.ts'), new Date(builtMs - 60_000), new Date(builtMs - 60_000));
      await writeFile(join(root, 'build-info.json'), JSON.stringify({ fileCount: 2, newestMs: builtMs, lockInputs: ['in.ts'] }));
      expect(bundleStaleReason(root, root)).toBeUndefined();
      utimesSync(join(root, 'out.ts'), new Date(builtMs + 60_000), new Date(builtMs + 60_000));
      expect(bundleStaleReason(root, root)).toBeUndefined();
      utimesSync(join(root, 'in.ts'), new Date(builtMs + 60_000), new Date(builtMs + 60_000));
      expect(bundleStaleReason(root, root)).toBe('in.ts changed since the build');
      rmSync(join(root, 'in.ts'));
      expect(bundleStaleReason(root, root)).toBe('in.ts, an input of the lock bundle, is gone');
      await writeFile(join(root, 'build-info.json'), JSON.stringify({ fileCount: 2, newestMs: builtMs }));
      expect(bundleStaleReason(root, root)).toBe('the build lists no lock inputs');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("runs each mode's bundle: --arbiter's (without class files, a bundle without their reader) when given before --, else --endpoints's", () => {
    const [endpoints, arbiter, bare] = ['src/cli-lock-endpoints.bundle.cjs', 'src/cli-lock-arbiter.bundle.cjs', 'src/cli-lock-arbiter-bare.bundle.cjs'];
    expect(lockBundleFor(['--arbiter', 'h:1', '--identity', 'i', 'a/b', '--', 'true'])).toBe(bare);
    expect(lockBundleFor(['--arbiter=h:1', 'a/b', '--', 'true', '--class', 'c'])).toBe(bare);
    expect(lockBundleFor(['--arbiter=h:1', '--class', 'c.yaml', 'a/b', '--', 'true'])).toBe(arbiter);
    expect(lockBundleFor(['--grants=g.yaml', '--arbiter', 'h:1', 'a/b', '--', 'true'])).toBe(arbiter);
    expect(lockBundleFor(['--endpoints', 'h:1', 'a/b', '--', 'run', '--arbiter'])).toBe(endpoints);
    expect(lockBundleFor(['--help'])).toBe(endpoints);
  });

  it("puts each mode's stack in its own bundles alone: the etcd client in --endpoints's, the lock.v1 client in --arbiter's", () => {
    const holds = (bundle: string, module: string) => bundleModules(bundle).includes(module);
    const [endpoints, arbiter, bare] = ['src/cli-lock-endpoints.bundle.cjs', 'src/cli-lock-arbiter.bundle.cjs', 'src/cli-lock-arbiter-bare.bundle.cjs'];
    for (const module of ['node_modules/etcd3/lib/index.js', 'node_modules/@grpc/grpc-js/build/src/index.js', 'src/etcd/etcd-lock-log.ts']) {
      expect(holds(endpoints!, module), module).toBe(true);
      expect(holds(arbiter!, module), module).toBe(false);
    }
    for (const module of ['node_modules/@connectrpc/connect-node/dist/esm/index.js', 'src/client/network-arbiter.ts']) {
      expect(holds(arbiter!, module), module).toBe(true);
      expect(holds(bare!, module), module).toBe(true);
      expect(holds(endpoints!, module), module).toBe(false);
    }
    // --arbiter without class files: neither their reader nor the libraries it needs.
    for (const module of ['node_modules/yaml/dist/index.js', 'node_modules/zod/index.js', 'core/classes/schemas.ts']) {
      expect(holds(arbiter!, module), module).toBe(true);
      expect(holds(bare!, module), module).toBe(false);
    }
  });
});

describe('`lockstep serve` from its bundle (servestart)', () => {
  const bundle = (): string => readFileSync(join(OUT_DIR, SERVE_BUNDLE), 'utf8');
  const modules = (): string[] => bundleModules(SERVE_BUNDLE);

  it('lists the sources serve runs from, --dev and the topology included, and no lock command', () => {
    const { serveInputs } = JSON.parse(readFileSync(join(OUT_DIR, 'build-info.json'), 'utf8')) as { serveInputs: string[] };
    for (const file of ['src/cli-serve.ts', 'src/commands/serve.ts', 'src/commands/serve-dev.ts', 'src/commands/serve-topology.ts', 'src/service/server.ts', 'src/etcd/etcd-lock-log.ts', 'core/arbiter/arbiter.ts']) {
      expect(serveInputs).toContain(file);
    }
    for (const file of ['src/commands/lock.ts', 'src/lock/fence-supervisor.ts', 'src/commands/gate.ts']) expect(serveInputs).not.toContain(file);
    expect(bundleStaleReason(OUT_DIR, REPO_ROOT, 'serve')).toBeUndefined();
  });

  it('is the file `lockstep serve` runs', async () => {
    expect((await currentCli('serve', ['--endpoints', 'h:1'])).pathname).toBe(join(OUT_DIR, SERVE_BUNDLE));
    expect((await currentCli('init', [])).pathname).toBe(join(OUT_DIR, 'src', 'cli.js'));
  });

  it('holds the zod it uses, not every locale (a `{ z }` import keeps all of zod: 0.8 MB read and compiled at each start)', () => {
    const locales = modules().filter((m) => m.startsWith('node_modules/zod/v4/locales/')).map((m) => m.slice('node_modules/zod/v4/locales/'.length));
    expect(locales).toEqual(['en.js', 'index.js']);
  });

  it('is ASCII-only, as every bundle is: one other character makes Node decode and V8 hash the whole file as two-byte text', () => {
    for (const file of [SERVE_BUNDLE, 'src/cli-lock-endpoints.bundle.cjs', 'src/cli-lock-arbiter.bundle.cjs', 'src/cli-lock-arbiter-bare.bundle.cjs']) {
      expect(/[\u0080-\uffff]/.test(readFileSync(join(OUT_DIR, file), 'utf8')), file).toBe(false);
    }
  });

  it('requires DuckDB (a native addon, for --audit-db) from node_modules at run time rather than bundling it', () => {
    expect(bundle()).toContain('require("@duckdb/node-api")');
    expect(modules().filter((m) => m.includes('node_modules/@duckdb/'))).toEqual([]);
    expect(modules()).toContain('src/commands/serve.ts'); // control: the list is the serve bundle's
  });
});
