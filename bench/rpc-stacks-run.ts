// One interleaved run of the RPC-stack bench (issue 30): a server process and a client process
// (rpc-stacks-child.ts, from dist/js through bin/run-compiled.mjs, so no TypeScript loader runs in what is
// measured), then rounds of slices rotating through every stack, plaintext and mTLS, at each concurrency:
// a burst of load on the shared machine hits every stack alike. One slice a round makes no calls: both
// processes' CPU without calls, which every stack's CPU per call also carries (more per call the fewer calls). Certificates come from the development CA
// kit (dev-certs.ts); both processes are killed when this one exits (process-reaper.ts).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/repo-root.js';
import { makeClientCert, makeDevCa, makeServerCert } from '../src/service/dev-certs.js';
import { reapOnExit } from '../src/testing/process-reaper.js';
import { STACKS } from './rpc-stacks-clients.js';
import { CERT_NAMES, type ChildMessage, type IdleCpu, type ParentMessage, type SliceResult, readTls } from './rpc-stacks-ipc.js';
import type { TlsMaterial } from './rpc-stacks-servers.js';
import { BENCH_IDENTITY } from './rpc-stacks-wire.js';

export interface RpcRunOptions {
  readonly rounds: number;
  readonly sliceMs: number;
  readonly warmupMs: number;
  /** A worker starts a call at most every periodMs (0: back to back). */
  readonly periodMs: number;
  readonly concurrencies: readonly number[];
  readonly progress: (line: string) => void;
}

export interface RpcRun {
  readonly results: readonly SliceResult[];
  /** Both processes' CPU over one slice a round without calls. */
  readonly idle: IdleCpu;
  /** 1-minute load average at the start and at the end. */
  readonly loadAverage: readonly [number, number];
  readonly elapsedS: number;
}

const RUN_COMPILED = join(REPO_ROOT, 'bin', 'run-compiled.mjs');
/** A first start may build dist/js (bin/js-build.mjs) before the process says it is up. */
const START_TIMEOUT_MS = 180_000;

/** The development CA, a server certificate for 127.0.0.1 and a client certificate naming the bench's identity, in `dir`. */
export async function benchTls(dir: string): Promise<TlsMaterial> {
  const ca = await makeDevCa(dir);
  await makeServerCert(ca, CERT_NAMES.server);
  await makeClientCert(ca, CERT_NAMES.client, [BENCH_IDENTITY]);
  return readTls(dir);
}

export async function runRpcStacks(options: RpcRunOptions): Promise<RpcRun> {
  const startedMs = performance.now();
  const loadAtStart = loadavg()[0] ?? 0;
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-rpc-stacks-'));
  const children: ChildProcess[] = [];
  try {
    await benchTls(dir);
    const server = start('server', dir, children);
    const { ports } = await expectMessage(server, 'servers', START_TIMEOUT_MS);
    const client = start('client', dir, children);
    await expectMessage(client, 'started', START_TIMEOUT_MS);
    tell(client, { kind: 'setup', serverPid: server.pid ?? 0, ports });
    await expectMessage(client, 'ready', START_TIMEOUT_MS);
    const sliceTimeoutMs = options.warmupMs + options.sliceMs + 60_000;
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const concurrency of options.concurrencies) {
        for (const stack of STACKS) {
          for (const secure of [false, true]) {
            tell(client, { kind: 'slice', stack: stack.id, secure, concurrency, warmupMs: options.warmupMs, durationMs: options.sliceMs, periodMs: options.periodMs });
            await expectMessage(client, 'sliced', sliceTimeoutMs);
          }
        }
      }
      tell(client, { kind: 'idle', durationMs: options.sliceMs });
      await expectMessage(client, 'sliced', sliceTimeoutMs);
      options.progress(`rpc-stacks: round ${round}/${options.rounds} done (${Math.round((performance.now() - startedMs) / 1000)} s, load ${(loadavg()[0] ?? 0).toFixed(1)})`);
    }
    tell(client, { kind: 'results' });
    const { results, idle } = await expectMessage(client, 'results', 60_000);
    return { results, idle, loadAverage: [loadAtStart, loadavg()[0] ?? 0], elapsedS: Math.round((performance.now() - startedMs) / 1000) };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

function start(role: 'server' | 'client', dir: string, children: ChildProcess[]): ChildProcess {
  const child = fork(RUN_COMPILED, ['bench/rpc-stacks-child.ts', role, dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  reapOnExit(child);
  children.push(child);
  return child;
}

function tell(child: ChildProcess, message: ParentMessage): void {
  child.send(message);
}

/** The child's next message of `kind`; a 'failed' message, its exit or the timeout rejects. */
function expectMessage<K extends ChildMessage['kind']>(child: ChildProcess, kind: K, timeoutMs: number): Promise<Extract<ChildMessage, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: ChildMessage) => {
      if (message.kind === 'failed') {
        done();
        reject(new Error(`the bench's ${child.spawnargs.at(-2) ?? ''} process failed: ${message.message}`));
      } else if (message.kind === kind) {
        done();
        resolve(message as Extract<ChildMessage, { kind: K }>);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`the bench's ${child.spawnargs.at(-2) ?? ''} process exited (${signal ?? String(code)}) before it said '${kind}'`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the bench's ${child.spawnargs.at(-2) ?? ''} process did not say '${kind}' within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
