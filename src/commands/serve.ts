// `lockstep serve --endpoints H:P[,..] --classes DIR --grants DIR --listen H:P [--tls-cert F --tls-key F
// --client-ca F]`: a stateless arbiter (ADR-18) serving lock.v1 and admin.v1 over gRPC. With mTLS every
// caller is the SPIFFE ID of its client certificate (ADR-19); without TLS it serves loopback only, and
// warns that identities are then whatever a caller claims. Classes and grants reload on change, the last
// good set serving when a new one is invalid (ADR-24). SIGTERM drains: no new calls, calls in flight
// finish, a grant being made is delivered. --metrics-listen serves the ADR-22 metrics and every call is
// logged with tokens censored (src/service/serve-telemetry.ts). `serve --dev` is src/commands/serve-dev.ts.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { EPOCH_KEY } from '../../core/arbiter/records.js';
import { QuotaGate } from '../../core/arbiter/quotas.js';
import { isCivilDate } from '../../core/classes/index.js';
import { isLockError } from '../../core/lock-error.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { createCryptoRandom, createRealClock } from '../clock/index.js';
import { EndpointSyntaxError, parseEndpoint, parseEtcdEndpoints } from '../etcd/endpoint-address.js';
import type { EtcdClientTls } from '../etcd/etcd-tls.js';
import { type EtcdTlsFlags, addEtcdTlsOptions, loadEtcdTls } from './etcd-tls-options.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { todayUtc } from '../policy-files.js';
import { type TlsFiles, watchServerTls } from '../service/tls-reload.js';
import { type ServingPolicy as Policy, ServingPolicy, loadPolicy, watchPolicy } from '../service/policy-reload.js';
import { HandshakeRefusals } from '../service/handshake-refusals.js';
import { type ServerTls, startArbiterServer } from '../service/server.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { Random } from '../../core/ports/random.js';
import { openTopology } from './serve-topology.js';
import type { LogLevel } from '../logging/index.js';
import { LOG_LEVELS, createServeTelemetry, serveMetrics } from '../service/serve-telemetry.js';
import { oneLine } from '../terminal-text.js';
import type { UnprotectedOptions } from '../../core/arbiter/fail-open.js';
import { type UnprotectedFlags, addUnprotectedOptions, openUnprotected } from './serve-unprotected.js';

export interface ServeOptions extends EtcdTlsFlags, UnprotectedFlags {
  endpoints?: string;
  topology?: string;
  classes?: string;
  grants?: string;
  listen: string;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  trustedProxy: string[];
  drainGrace: string;
  now?: string;
  dev?: boolean;
  devDir?: string;
  metricsListen?: string;
  clusterName: string;
  json?: boolean;
  logLevel: string;
}

export const DEFAULT_LISTEN = '127.0.0.1:7420';
const DRAIN_GRACE_MS = 10_000;

// --dev's throwaway etcd and certificates load only when asked for.
const runDev = async (options: ServeOptions, io: CliIo): Promise<number> => (await import('./serve-dev.js')).runServeDev(options, io);

/** `ready` is called once serve serves (src/cli-serve.ts: the bundle's code cache is saved then, servestart). */
export function registerServeCommand(program: Command, io: CliIo, setExitCode: (code: number) => void, ready?: () => void): void {
  const command = program.command('serve');
  addEtcdTlsOptions(command);
  addUnprotectedOptions(command); // ADR-04
  command
    .description(
      'Run an arbiter: lock.v1 and admin.v1 over gRPC (HTTP/2), with the standard grpc.health.v1 service and server reflection ' +
        '(grpc.reflection.v1, v1alpha). With --tls-cert, --tls-key ' +
        'and --client-ca it serves mTLS and each caller is the spiffe:// URI SAN of its client certificate (exactly one, ADR-19); without ' +
        'TLS it listens on loopback only and identities are unauthenticated (a lockstep-identity header). --classes and --grants are ' +
        'reloaded on change; an invalid new set is refused and the last good one keeps serving (ADR-24). SIGTERM or SIGINT drains. ' +
        '--dev starts a throwaway etcd, development certificates and the example classes. Exit 0 drained; 2 bad input; 5 the log is ' +
        'not initialised (lockstep init) or sealed, or etcd is unreachable (each said apart).',
    )
    .option('--endpoints <list>', 'etcd client endpoints, host:port[,host:port...] (required without --dev; https://host:port for a TLS-only etcd)')
    .option('--topology <file>', 'instead of --endpoints: a YAML Topology naming the region, its coord cluster and entity shards (endpoints each); keys are routed by class tier and the watched shard map, other regions\' keys get the redirect error (ADR-07/08/09, docs/seal-and-epochs.md)')
    .option('--classes <dir>', 'directory of YAML files with the LockClass and PauseTestResult documents (required without --dev)')
    .option('--grants <dir>', 'directory of YAML files with the LockGrant documents (required without --dev)')
    .option('--listen <host:port>', 'address to serve on; without TLS only a loopback address', DEFAULT_LISTEN)
    .option('--tls-cert <file>', 'the server certificate (PEM); with --tls-key and --client-ca')
    .option('--tls-key <file>', 'the server certificate\'s private key (PEM)')
    .option('--client-ca <file>', 'the CA (PEM) that signs client certificates; a client without one is refused')
    .option('--trusted-proxy <spiffe-id>', "a proxy (Envoy) whose x-forwarded-client-cert names the caller; repeatable. From any other peer that header is refused (ADR-18/19)", (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--drain-grace <ms>', 'on SIGTERM, how long calls in flight may take to finish before waits are ended with unavailable', String(DRAIN_GRACE_MS))
    .option('--now <date>', 'today\'s date (YYYY-MM-DD) for class checks; default today in UTC')
    .option('--metrics-listen <host:port>', 'serve Prometheus metrics (ADR-22) over HTTP at GET /metrics on this address; default none')
    .option('--cluster-name <name>', 'the cluster label of every metric: the name of the etcd cluster this arbiter grants on', 'entity-1')
    .option('--json', 'log one JSON object per line on standard error (pino); tokens are censored in both forms (ADR-22)')
    .option('--log-level <level>', 'info logs refusals a team may need to see (denied, leak, sealed); debug logs every call', 'info')
    .option('--dev', 'development mode: a throwaway local etcd, a development CA and client certificates, the example classes and grants')
    .option('--dev-dir <dir>', 'with --dev: where the certificates and etcd data go (default a new temporary directory)')
    .action(async (options: ServeOptions) => {
      setExitCode(options.dev === true ? await runDev(options, io) : await runServe(options, io, ready));
    });
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[?::1\]?)$/i;

interface ServeSetup {
  endpoints: string[];
  /** The files of `tls`, read again when they change (a rotated SVID, tls-reload.ts). */
  tlsFiles: TlsFiles | undefined;
  trustedProxies: string[];
  etcdTls: EtcdClientTls | undefined;
  host: string;
  port: number;
  tls: ServerTls | undefined;
  drainGraceMs: number;
  metrics: { host: string; port: number } | undefined;
  logLevel: LogLevel;
}

/** Everything checked before anything listens or dials: bad input exits 2 having done nothing. */
async function checkInputs(options: ServeOptions): Promise<ServeSetup> {
  if (options.endpoints !== undefined && options.topology !== undefined) throw new BadInput('--endpoints and --topology do not go together: one cluster, or the clusters a topology file names');
  if (options.endpoints === undefined && options.topology === undefined) throw new BadInput('--endpoints is required (the etcd members, host:port[,...]), or --topology FILE for a region\'s clusters; or try --dev for a throwaway local etcd');
  if (options.classes === undefined || options.grants === undefined) throw new BadInput('--classes DIR and --grants DIR are required: the directories of LockClass and LockGrant YAML files (ADR-24)');
  let endpoints: string[];
  let listen: URL;
  try {
    endpoints = options.endpoints === undefined ? [] : parseEtcdEndpoints(options.endpoints);
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    throw new BadInput(`--endpoints ${JSON.stringify(options.endpoints)}: ${error.message}`);
  }
  try {
    listen = new URL(parseEndpoint(options.listen));
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    throw new BadInput(`--listen ${JSON.stringify(options.listen)}: ${error.message.replace('a member\'s client address', 'the address to serve on')}`);
  }
  if (!/^\d+$/.test(options.drainGrace)) throw new BadInput(`--drain-grace ${JSON.stringify(options.drainGrace)} is not a whole number of milliseconds`);
  const tlsFiles = [options.tlsCert, options.tlsKey, options.clientCa];
  const given = tlsFiles.filter((file) => file !== undefined).length;
  if (given !== 0 && given !== 3) throw new BadInput('--tls-cert, --tls-key and --client-ca go together: mTLS needs the server certificate, its key and the CA of the client certificates');
  let tls: ServerTls | undefined;
  if (given === 3) {
    try {
      tls = { cert: await readFile(options.tlsCert as string), key: await readFile(options.tlsKey as string), clientCa: await readFile(options.clientCa as string) };
    } catch (error) {
      throw new BadInput(`cannot read a TLS file: ${(error as Error).message}`);
    }
  } else if (!LOOPBACK.test(listen.hostname)) {
    throw new BadInput(`--listen ${options.listen} is not a loopback address, and without TLS any caller could claim any identity (ADR-19); serve with --tls-cert, --tls-key and --client-ca, or listen on 127.0.0.1`);
  }
  if (options.now !== undefined && !isCivilDate(options.now)) throw new BadInput(`--now ${JSON.stringify(options.now)} is not a date; give YYYY-MM-DD`);
  let metrics: URL | undefined;
  try {
    metrics = options.metricsListen === undefined ? undefined : new URL(parseEndpoint(options.metricsListen));
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    throw new BadInput(`--metrics-listen ${JSON.stringify(options.metricsListen)}: ${error.message.replace('a member\'s client address', 'the address to serve metrics on')}`);
  }
  const logLevel = LOG_LEVELS.find((level) => level === options.logLevel);
  if (logLevel === undefined) throw new BadInput(`--log-level ${JSON.stringify(options.logLevel)} is not a level; give one of ${LOG_LEVELS.join(', ')}`);
  if (!/^[A-Za-z0-9_.-]{1,63}$/.test(options.clusterName)) throw new BadInput(`--cluster-name ${JSON.stringify(options.clusterName)}: a metric label value of letters, digits, '.', '_' or '-' (at most 63)`);
  const etcdTls = await loadEtcdTls(options);
  const notSpiffe = options.trustedProxy.find((id) => !/^spiffe:\/\/[^\s/]+\/\S*$/.test(id));
  if (notSpiffe !== undefined) throw new BadInput(`--trusted-proxy ${JSON.stringify(notSpiffe)} is not a SPIFFE ID; give the proxy's, like spiffe://example.org/ns/lockstep/sa/envoy`);
  if (options.trustedProxy.length > 0 && tls === undefined) throw new BadInput('--trusted-proxy needs mTLS (--tls-cert, --tls-key, --client-ca): a proxy is trusted by the certificate it presents');
  return {
    endpoints, etcdTls, trustedProxies: options.trustedProxy,
    tlsFiles: tls === undefined ? undefined : { cert: options.tlsCert as string, key: options.tlsKey as string, clientCa: options.clientCa as string }, host: hostOf(listen), port: Number(listen.port), tls, drainGraceMs: Number(options.drainGrace),
    metrics: metrics === undefined ? undefined : { host: hostOf(metrics), port: Number(metrics.port) }, logLevel,
  };
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export async function runServe(options: ServeOptions, io: CliIo, started?: (address: { host: string; port: number }) => void): Promise<number> {
  const setup = await checkInputs(options);
  const dirs = { classes: options.classes as string, grants: options.grants as string };
  const today = (): string => options.now ?? todayUtc();
  const first = await loadPolicy(dirs, today());
  if ('problems' in first) throw new BadInput(`${dirs.classes} and ${dirs.grants} have ${first.problems.length} problem(s); fix them (lockstep class check) and run again`, { lines: first.problems });
  const policy: Policy = new ServingPolicy(first.loaded);
  const random = createCryptoRandom();
  const telemetry = createServeTelemetry({ cluster: options.clusterName, classes: policy, json: options.json === true, level: setup.logLevel, write: (line) => io.err(line) });
  const unprotected = await openUnprotected(options, setup, options.topology !== undefined, io); // ADR-04
  const opened = options.topology === undefined ? await openOne(setup, telemetry.timedLog, policy, random, unprotected) : await openTopology({ file: options.topology, classes: policy, authorizer: policy, random, wrapLog: (log) => telemetry.timedLog(log), etcdTls: setup.etcdTls }, io);
  const arbiter = 'router' in opened ? opened.router : opened.arbiter;
  const metricsServer = await serveMetrics(telemetry, setup.metrics);
  const refusals = new HandshakeRefusals({ nowMs: () => Date.now(), log: (refusal) => telemetry.logger.warn({ ...refusal }, 'refused a TLS handshake (once per peer a minute)') });
  // Issue 28: per-identity quotas inside the telemetry, so their refusals are logged and counted.
  const quotas = new QuotaGate(arbiter, { clock: createRealClock(), limitsOf: (identity) => policy.limitsOf(identity) });
  const server = await startArbiterServer({ arbiter: telemetry.wrap(quotas, arbiter), ...('moves' in opened ? { moves: opened.moves } : {}), host: setup.host, port: setup.port, trustedProxies: setup.trustedProxies, ...(setup.tls === undefined ? {} : { tls: setup.tls }), handshakeRefusals: refusals, onUnexpected: (error) => io.err(oneLine(`lockstep serve: unexpected error in a call: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)) });
  // Listened for before serving is said: a SIGTERM right after the line (a supervisor that saw it) drains
  // rather than killing the process outright, as the default action would until a listener exists.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  if (setup.tls === undefined) io.err(`lockstep serve: WARNING: no TLS: identities are unauthenticated (a caller names itself in the lockstep-identity header) and nobody may act as an operator; serve with --tls-cert, --tls-key and --client-ca for anything but a trial`);
  io.err(oneLine(`lockstep serve: serving lock.v1 and admin.v1 on ${server.host}:${server.port} (${setup.tls === undefined ? 'plaintext' : 'mTLS'}), ${first.loaded.classCount} classes and ${first.loaded.grantCount} grants from ${dirs.classes} and ${dirs.grants}`));
  if (metricsServer !== undefined) io.err(oneLine(`lockstep serve: metrics at http://${metricsServer.address}/metrics`));
  started?.({ host: server.host, port: server.port });
  const watching = watchPolicy(dirs, policy, today, (outcome) => {
    if ('loaded' in outcome) io.err(oneLine(`lockstep serve: reloaded ${outcome.loaded.classCount} classes and ${outcome.loaded.grantCount} grants`));
    else {
      io.err(oneLine(`lockstep serve: refused the changed classes or grants (${outcome.problems.length} problem(s)); the last good set keeps serving (ADR-24):`));
      for (const problem of outcome.problems) io.err(oneLine(`  ${problem}`));
    }
  }, first.loaded);
  const rotating = setup.tlsFiles === undefined ? undefined : watchServerTls(setup.tlsFiles, (tls) => server.setTls(tls), (outcome) => {
    io.err(oneLine(outcome.adopted ? 'lockstep serve: reloaded the TLS certificate, key and client CA: new connections use them' : `lockstep serve: refused the changed TLS files (${outcome.problem}); the last good ones keep serving`));
  });
  const signal = await stopSignal;
  io.err(oneLine(`lockstep serve: ${signal}: draining (${server.inFlight()} calls in flight, up to ${setup.drainGraceMs} ms)`));
  watching.stop();
  rotating?.stop();
  const drained = await server.drain(setup.drainGraceMs, () => opened.endWaits());
  await opened.close();
  await metricsServer?.close();
  io.err(oneLine(`lockstep serve: stopped${drained.cutShort ? ' (waits still in line after the grace were ended with unavailable)' : ''}`));
  return ExitCode.ok;
}

/** Single-cluster serving: one log, one arbiter, its epoch confirmed before anything listens. */
async function openOne(setup: ServeSetup, wrapLog: (log: LockLog) => LockLog, policy: Policy, random: Random, unprotected?: UnprotectedOptions): Promise<{ arbiter: Arbiter; endWaits: () => void; close: () => Promise<void> }> {
  const log = createEtcdLockLog({ endpoints: setup.endpoints, ...(setup.etcdTls === undefined ? {} : { tls: setup.etcdTls }) });
  const arbiter = new Arbiter({ log: wrapLog(log), clock: createRealClock(), random, classes: policy, authorizer: policy, approvalIdPrefix: `${Math.floor(random.next() * 2 ** 32).toString(16)}-`, ...(unprotected === undefined ? {} : { unprotected }) });
  let closed = false;
  const close = async (): Promise<void> => {
    arbiter.close();
    if (closed) return;
    closed = true;
    await log.close();
  };
  try {
    const status = await arbiter.status();
    if (status.sealed === undefined && status.epoch === undefined) {
      // Neither an epoch nor a seal: the epoch record was never read (issue 29: not "run lockstep init").
      const why = await unreachableWhy(log);
      await close();
      throw new Refusal(`cannot reach etcd at ${hostPorts(setup.endpoints)}: ${why}; check --endpoints and that etcd is up`, ExitCode.refused);
    }
    if (status.sealed !== undefined) {
      const where = hostPorts(setup.endpoints);
      const why = status.sealed.kind === 'no-epoch-record' ? `etcd at ${where} has no epoch record: it is not initialised; run lockstep init --endpoints ${where} first (ADR-03)` : `the arbiter is sealed (${status.sealed.kind}): the log was restored or replaced, and serves nothing until two operators advance the epoch (ADR-03)`;
      await close();
      throw new Refusal(`refused: ${why}`, ExitCode.refused);
    }
  } catch (error) {
    if (!isLockError(error)) throw error;
    await close();
    throw new Refusal(`cannot reach etcd at ${setup.endpoints.join(',')}: ${error.message}`, ExitCode.refused);
  }
  return { arbiter, endWaits: () => arbiter.close(), close };
}

function hostPorts(endpoints: readonly string[]): string {
  return endpoints.map((e) => e.replace(/^https?:\/\//, '')).join(',');
}

/** Why a read of the log fails, in the words of the error (connection refused, a timeout). */
async function unreachableWhy(log: LockLog): Promise<string> {
  try {
    await log.range({ key: EPOCH_KEY });
    return 'the epoch record could not be read';
  } catch (error) {
    return (error as Error).message.slice(0, 300);
  }
}
