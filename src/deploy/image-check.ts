// `npm run image:check`: the image deploy/image/build.sh made, run the way this machine allows and held to
// what a Deployment asks of it. `podman run` is refused here (crun: cgroups in hybrid mode / setrlimit), so
// the image's root file system is mounted with `buildah from` + `buildah mount` and its entrypoint run with
// chroot as the image's user, with the image's environment and nothing of this process's. Checked:
// `--version` answers; `serve` from the image, over mTLS on a real etcd, grants a lock to a client outside
// the image (`lockstep lock` from this repository). Everything it starts or mounts is stopped and removed,
// also when a step fails. Exit 0 when every check holds, 1 otherwise.
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { initEtcdLog } from '../etcd/index.js';
import { makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { startLockstep } from '../testing/lockstep-process.js';

const run = promisify(execFile);
const IMAGE = process.argv[2] ?? 'localhost/lockstep:0.1.0';
const IMAGE_USER = '10001:10001';
const LEDGER_WRITER = 'spiffe://example.org/ns/payments/sa/ledger-writer';

async function main(): Promise<number> {
  const container = (await run('buildah', ['from', IMAGE])).stdout.trim();
  const cleanups: Array<() => Promise<unknown>> = [() => run('buildah', ['rm', container])];
  try {
    const root = (await run('buildah', ['mount', container])).stdout.trim();
    cleanups.unshift(() => run('buildah', ['umount', container]));
    const env = await imageEnvironment(container);
    const inImage = (args: readonly string[]) => ['--userspec', IMAGE_USER, root, '/usr/bin/node', '/app/bin/lockstep.mjs', ...args];

    const version = await run('chroot', inImage(['--version']), { env });
    report('--version answers', version.stdout.trim() === process.env['npm_package_version'], version.stdout.trim());

    const etcd = await startEtcdCluster({ members: 1 });
    cleanups.unshift(() => etcd.stop());
    await initEtcdLog(etcd.endpoints);
    const certs = join(root, 'tmp', 'certs');
    await mkdir(certs, { recursive: true });
    const ca = await makeDevCa(certs);
    const server = await makeServerCert(ca);
    await makeClientCert(ca, 'ledger-writer', [LEDGER_WRITER]);
    await run('chown', ['-R', IMAGE_USER, certs]);
    const [port] = await freePorts(1);
    const inside = (file: string) => file.slice(root.length);
    const serve = spawn('chroot', inImage([
      'serve', `--endpoints=${etcd.endpoints.map((e) => e.replace(/^http:\/\//, '')).join(',')}`,
      '--classes=/app/examples/classes', '--grants=/app/examples/grants', `--listen=127.0.0.1:${port}`,
      `--tls-cert=${inside(server.cert)}`, `--tls-key=${inside(server.key)}`, `--client-ca=${inside(ca.cert)}`,
    ]), { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    cleanups.unshift(async () => stopGroup(serve.pid));
    await listening(serve, 'serving lock.v1');

    const outside = join(process.cwd(), '.lockstep-tmp', 'image-check');
    await cp(certs, outside, { recursive: true });
    cleanups.unshift(() => rm(outside, { recursive: true, force: true }));
    const lock = startLockstep(['lock', '--arbiter', `127.0.0.1:${port}`, '--tls-cert', join(outside, 'ledger-writer.crt'), '--tls-key', join(outside, 'ledger-writer.key'), '--ca', join(outside, 'ca.crt'), '--class', 'examples/classes/ledger-writes.yaml', 'payments/ledger/image-check', '--', 'true']);
    const { code } = await lock.exited;
    report('serve from the image grants a lock over mTLS', code === 0, `lock exited ${code}: ${lock.stderr().trim().split('\n').at(-1) ?? ''}`);
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
  return failures === 0 ? 0 : 1;
}

let failures = 0;
function report(check: string, ok: boolean, detail: string): void {
  if (!ok) failures += 1;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${check} (${detail})\n`);
}

/** The image's own Env, as a container runtime would give it; nothing of this process's environment. */
async function imageEnvironment(container: string): Promise<NodeJS.ProcessEnv> {
  const config = JSON.parse((await run('buildah', ['inspect', '--type', 'container', container])).stdout) as { OCIv1: { config: { Env?: string[] } } };
  return Object.fromEntries((config.OCIv1.config.Env ?? []).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

function listening(child: ReturnType<typeof spawn>, word: string): Promise<void> {
  return new Promise((done, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`serve from the image did not start in 60 s: ${err}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes(word)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => fail(new Error(`serve from the image exited ${code}: ${err}`)));
  });
}

async function stopGroup(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

process.exitCode = await main();
