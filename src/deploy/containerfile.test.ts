// deploy/image/Containerfile checked against the repository, on every run of the tests (building the image
// takes minutes and a container tool: `npm run image:build` and `npm run image:check` do that, and
// deploy/README.md says what they showed). What is checked here is what a rename would silently break:
// every path the image copies exists (in the repository, or as what `npm ci` makes), the entrypoint is the
// package's own `lockstep` bin, the build context leaves out what `npm ci` remakes, the user is not root,
// and the base images are the ones build-bases.sh makes.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUT_DIR, REPO_ROOT } from '../../bin/js-build.mjs';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const containerfile = read('deploy/image/Containerfile');
const instructions = containerfile.split('\n').filter((line) => /^[A-Z]+ /.test(line)).map((line) => {
  const [op = '', ...rest] = line.split(' ');
  return { op, args: rest };
});
/** What the build stage has beyond the repository: npm ci's dependencies and its prepare step's output. */
const MADE_BY_NPM_CI = new Set(['/app/node_modules', `/app/${OUT_DIR.slice(REPO_ROOT.length + 1)}`]);

describe('deploy/image/Containerfile', () => {
  it('starts both stages from the base images build-bases.sh makes', () => {
    const bases = instructions.filter((i) => i.op === 'FROM').map((i) => i.args[0]);
    const script = read('deploy/image/build-bases.sh');
    expect(bases).toEqual(['localhost/lockstep-build-base:bookworm', 'localhost/lockstep-runtime-base:bookworm']);
    for (const base of bases) expect(script).toContain(`podman import --quiet "$work/${base?.includes('build') ? 'build' : 'runtime'}.tar" ${base}`);
  });

  it('copies only what exists: the repository into the build stage, and from it files the repository or npm ci has', () => {
    const fromBuild = instructions.filter((i) => i.op === 'COPY' && i.args[0] === '--from=build').map((i) => i.args[1] ?? '');
    expect(fromBuild.length).toBeGreaterThan(3);
    for (const path of fromBuild) {
      const madeByNpmCi = MADE_BY_NPM_CI.has(path);
      expect(madeByNpmCi || existsSync(join(REPO_ROOT, path.replace(/^\/app\//, ''))), `${path} is neither in the repository nor made by npm ci`).toBe(true);
    }
    expect(fromBuild).toEqual(expect.arrayContaining([...MADE_BY_NPM_CI, '/app/bin', '/app/package.json']));
    expect(instructions.find((i) => i.op === 'COPY' && i.args[0] !== '--from=build')?.args).toEqual(['.', '/app']);
  });

  it("runs the package's own lockstep bin as a non-root user", () => {
    const entrypoint = JSON.parse(instructions.find((i) => i.op === 'ENTRYPOINT')?.args.join(' ') ?? '[]') as string[];
    const bin = (JSON.parse(read('package.json')) as { bin: { lockstep: string } }).bin.lockstep;
    expect(entrypoint).toEqual(['/usr/bin/node', `/app/${bin}`]);
    const user = instructions.find((i) => i.op === 'USER')?.args[0] ?? '';
    expect(user).toMatch(/^[1-9]\d+:[1-9]\d+$/);
    expect(read('deploy/image/build-bases.sh')).toContain(`lockstep:x:${user.split(':')[0]}:`);
  });

  it('builds from a context without what npm ci remakes or git keeps', () => {
    const ignored = read('.containerignore').split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
  });

  it('has executable build scripts', () => {
    for (const script of ['deploy/image/build.sh', 'deploy/image/build-bases.sh']) expect(statSync(join(REPO_ROOT, script)).mode & 0o111, script).not.toBe(0);
  });
});
