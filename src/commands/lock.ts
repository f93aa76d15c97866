// `lockstep lock --endpoints H:P[,..] --class FILE --identity ID <namespace/key> -- <command...>`, or
// `lockstep lock --arbiter H:P[,..] <namespace/key> -- <command...>` (the class from the arbiters, issue 29)
// Wires the real world together: the etcd LockLog, the real clock, the in-process arbiter and the
// client library, around one command (src/lock/run-locked-command.ts).
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { Clock } from '../../core/ports/clock.js';
import type { Command } from 'commander';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import type { CheckResult, LockClass } from '../../core/classes/index.js';
import { ClassRegistry } from '../../core/classes/registry.js';
import { isCivilDate } from '../../core/classes/civil-date.js';
import { isLockError } from '../../core/lock-error.js';
import { type LockKey, parseLockKey } from '../../core/lock-key.js';
import { DEFAULT_FENCE_MARGIN_MS } from '../../core/client/client-session.js';
import { LockClient } from '../../core/client/lock-client.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { createRealClock, sleepMs } from '../clock/real-clock.js';
import { DEFAULT_MAX_WAIT_MS } from '../../core/limits.js';
import { parseDuration } from '../duration.js';
import { EndpointSyntaxError, parseEtcdEndpoints } from '../etcd/endpoint-address.js';
import { type EtcdTlsFlags, addEtcdTlsOptions, loadEtcdTls } from './etcd-tls-options.js';
import { type CoordOptions, type CoordTarget, SINGLE_CLUSTER_HELP, addCoordOptions, parseCoordOptions } from './coord-option.js';
import { type EmitLockEvent, jsonLineEvents } from '../lock/lock-events.js';
import { SupervisorLink } from '../lock/supervisor-link.js';
import { describeRefusal, exitCodeForLockError, runLockedCommand } from '../lock/run-locked-command.js';
import { defaultInstance, serverClass } from '../lock/server-class.js';
import { checkInstance } from '../../core/arbiter/sessions.js';

const CLOSE_GRACE_MS = 2000;

interface LockOptions extends CoordOptions, EtcdTlsFlags {
  endpoints?: string;
  arbiter?: string;
  tlsCert?: string;
  tlsKey?: string;
  ca?: string;
  class: string[];
  className?: string;
  instance?: string;
  identity?: string;
  grants: string[];
  wait: string;
  killAfter: string;
  now?: string;
  json?: boolean;
}

/** Repeatable options collect into a list; not variadic, so a following key is never taken for a file. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerLockCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const command = program
    .command('lock')
    .description(
      'Hold a lock while a command runs; the command gets the fencing token in LOCKSTEP_TOKEN (and a fingerprint of it to log, ' +
        'LOCKSTEP_TOKEN_FINGERPRINT). The token is printed only with --json, for scripts that pass it on; stderr and logs carry ' +
        'the fingerprint alone (ADR-22). A class that declared onQuorumLoss: open may be granted from an arbiter\'s memory while etcd ' +
        'has no majority (ADR-04): that token is 0, which every fence refuses, the command gets LOCKSTEP_UNPROTECTED=1 (never ' +
        'otherwise) and stderr says UNPROTECTED. The command runs in a process group of its own, watched ' +
        'by a supervisor process that stops the whole group at the fence deadline (ADR-12) or at once if lockstep dies; a command ' +
        'that leaves its group (setsid, a daemon) escapes it. The log must have been initialised (lockstep init). ' +
        'Exit: the command\'s code; 2 bad input; 3 wait timed out; 4 fenced (lock lost, or the command was stopped); 5 refused ' +
        '(no-epoch-record, sealed, denied, leak, unreachable, indeterminate); 6 not authenticated, nothing was sent (the arbiter ' +
        'refused the TLS handshake: no client certificate, one from another CA, an expired one; --ca is not the arbiters\' CA; the ' +
        'certificate carries no single spiffe:// URI): the message names which and the fix; 127 the command could not be started. ' +
        SINGLE_CLUSTER_HELP,
    )
    .argument('<key>', 'the lock key, namespace/path')
    .argument('<command...>', 'the command to run while holding the lock (after --)')
    .option('--endpoints <list>', 'etcd client endpoints, host:port[,host:port...]: an arbiter in this process, for single-team use (ADR-18); or --arbiter')
    .option('--arbiter <list>', 'lockstep serve arbiters, host:port[,host:port...]: each key goes to one by rendezvous hashing, the next when it is down')
    .option('--tls-cert <file>', 'with --arbiter: the client certificate (PEM) whose spiffe:// URI SAN is the identity')
    .option('--tls-key <file>', 'with --arbiter: the client certificate\'s key (PEM)')
    .option('--ca <file>', 'with --arbiter: the CA (PEM) that signed the arbiters\' certificates')
    .option('--class <file>', 'YAML file with the LockClass (and its PauseTestResult when fenced); repeat for more files. Required with --endpoints; with --arbiter the arbiters name the key\'s class, and a file that disagrees with theirs is refused', collect, [])
    .option('--class-name <name>', 'which LockClass to use when the key\'s namespace has several')
    .option('--instance <label>', 'which replica of the workload this is (default: host name and process id): replicas sharing an identity take turns; a label, not a credential')
    .option('--identity <id>', 'who is locking (a SPIFFE ID, say); required with --endpoints, and with --arbiter without TLS (then unauthenticated)')
    .option('--grants <file>', 'YAML file with LockGrant documents (repeatable); without it the identity is granted the class\'s namespace', collect, [])
    .option('--wait <duration>', 'how long to wait in line when the key is held (0 = do not wait)', '30s')
    .option('--kill-after <duration>', `grace between SIGTERM and SIGKILL when the lock is lost; under the ${DEFAULT_FENCE_MARGIN_MS} ms fence margin, so the command is gone before the lease can expire (ADR-12)`, '500ms')
    .option('--now <date>', 'today\'s date (YYYY-MM-DD) for class checks; default today in UTC')
    .option(
      '--json',
      'print one JSON event per line on stdout for scripts: granted (with the token itself, its fingerprint and fenceInMs), fence, ' +
        'released, refused, exit; each with its time. The token is printed only here, on the stdout a script asked for it on; logs and ' +
        'stderr never carry it (ADR-22). The command\'s own output shares stdout: redirect it inside the command to keep the stream clean',
    );
  addEtcdTlsOptions(command);
  addCoordOptions(command)
    .action(async (key: string, command: string[], options: LockOptions) => {
      const emit = options.json === true ? jsonLineEvents((line) => io.out(line)) : undefined;
      // A refusal ends the --json stream with its exit event too; the boundary prints its line (src/cli.ts).
      const code = await runLock(key, command, options, io, emit).catch((error: unknown) => {
        if (error instanceof Refusal) emit?.({ event: 'exit', code: error.exitCode });
        throw error;
      });
      emit?.({ event: 'exit', code });
      setExitCode(code);
    });
}

async function runLock(keyText: string, command: string[], options: LockOptions, io: CliIo, emit: EmitLockEvent | undefined): Promise<number> {
  const setup = await loadSetup(keyText, command, options, io);
  // ADR-12's fence supervisor, a second Node process: started before the etcd client is loaded and
  // connected, so that its start-up overlaps that work rather than the wait after the grant (issue 30).
  // runLockedCommand owns it from there; every return before that lets it go.
  const supervisor = SupervisorLink.start();
  const clock = createRealClock();
  const connection = await connect(setup, options, clock).catch((error: unknown) => {
    supervisor.close();
    throw error;
  });
  if ('refused' in connection) {
    supervisor.close();
    throw connection.unauthenticated === true ? new Refusal(connection.refused, ExitCode.unauthenticated) : new BadInput(connection.refused);
  }
  let handedOver = false;
  const client = new LockClient({ arbiter: connection.api, clock, identity: connection.identity, instance: setup.instance });
  try {
    // Issue 29: the class is the arbiters' (their registry, ADR-24); a local --class must agree with it.
    const governing = await serverClass(connection.api, keyText, options.className ?? setup.lockClass?.name, setup.lockClass).catch((error: unknown) => {
      if (!isLockError(error)) throw error;
      io.err(describeRefusal(error, keyText, connection.where));
      emit?.({ event: 'refused', key: keyText, code: error.code, message: error.message });
      return exitCodeForLockError(error);
    });
    if (typeof governing === 'number') return governing;
    if ('mismatch' in governing) throw new BadInput(governing.mismatch);
    handedOver = true;
    return await runLockedCommand({
      client,
      clock,
      endpoints: connection.where,
      key: keyText,
      className: governing.lockClass.className,
      ttlSeconds: governing.lockClass.ttlSeconds,
      waitMs: setup.waitMs,
      command,
      killAfterMs: setup.killAfterMs,
      io,
      supervisor,
      ...(emit === undefined ? {} : { emit }),
    });
  } finally {
    if (!handedOver) supervisor.close();
    // Closing revokes the session so waiters need not sit out its TTL; but a log that stopped answering
    // (the very reason for a fence) must not hold the exit hostage: the lease then expires by itself.
    await Promise.race([client.close(), sleepMs(CLOSE_GRACE_MS)]);
    await Promise.race([connection.close(), sleepMs(CLOSE_GRACE_MS)]);
  }
}

interface Connection {
  readonly api: ArbiterApi;
  readonly identity: string;
  /** For messages that name a fix. */
  readonly where: readonly string[];
  close(): Promise<void>;
}

/**
 * ADR-18: remote arbiters (--arbiter), or one in this process for single-team use (--endpoints). Each mode's
 * stack is imported here, when chosen: the etcd client and the lock.v1 client each cost hundreds of
 * milliseconds of start-up, and a run needs only one of them (issue 30).
 */
async function connect(setup: Setup, options: LockOptions, clock: Clock): Promise<Connection | { refused: string; unauthenticated?: true }> {
  if (options.arbiter !== undefined) {
    const { connectRemote } = await import('../lock/remote-arbiter.js');
    const remote = await connectRemote({ arbiter: options.arbiter, ...pick(options) });
    if ('refused' in remote) return remote;
    return { api: remote.arbiter, identity: remote.identity, where: remote.addresses, close: async () => remote.arbiter.close() };
  }
  const identity = options.identity as string;
  const tls = await loadEtcdTls(options);
  const { connectLocal } = await import('../lock/local-arbiter.js');
  const local = connectLocal({ endpoints: setup.endpoints, coord: setup.coord, classes: setup.classes, grants: setup.grants, identity, tls, clock, closeGraceMs: CLOSE_GRACE_MS });
  return { api: local.api, identity, where: setup.endpoints, close: () => local.close() };
}

function pick(options: LockOptions): { tlsCert?: string; tlsKey?: string; ca?: string; identity?: string } {
  return {
    ...(options.tlsCert === undefined ? {} : { tlsCert: options.tlsCert }),
    ...(options.tlsKey === undefined ? {} : { tlsKey: options.tlsKey }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.identity === undefined ? {} : { identity: options.identity }),
  };
}

interface Setup {
  endpoints: string[];
  coord: CoordTarget | undefined;
  classes: ClassRegistry;
  /** From --class files; undefined with --arbiter and no --class (the arbiters name it). */
  lockClass: LockClass | undefined;
  instance: string;
  grants: PrefixGrants;
  waitMs: number;
  killAfterMs: number;
}

/** Everything checked before anything touches etcd: bad input exits 2 having written nothing. */
async function loadSetup(keyText: string, command: readonly string[], options: LockOptions, io: CliIo): Promise<Setup> {
  let waitMs: number;
  let killAfterMs: number;
  try {
    waitMs = parseDuration(options.wait, '--wait', { maxMs: DEFAULT_MAX_WAIT_MS, why: 'the longest wait in line the arbiter allows' });
    killAfterMs = parseDuration(options.killAfter, '--kill-after');
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
  let key: LockKey;
  try {
    key = parseLockKey(keyText);
  } catch (error) {
    if (!isLockError(error)) throw error;
    throw new BadInput(error.message);
  }
  if (killAfterMs >= DEFAULT_FENCE_MARGIN_MS) {
    throw new BadInput(`--kill-after ${options.killAfter} must be under ${DEFAULT_FENCE_MARGIN_MS} ms, the ADR-12 margin between the fence deadline and the lease's expiry: a longer grace lets the command run on after another holder may have the key`);
  }
  if ((options.endpoints === undefined) === (options.arbiter === undefined)) {
    throw new BadInput('give one of --endpoints (an arbiter in this process, single-team use) and --arbiter (lockstep serve arbiters)');
  }
  if (options.endpoints !== undefined && options.identity === undefined) throw new BadInput('--identity is required with --endpoints: who is locking (a SPIFFE ID, say)');
  let endpoints: string[] = [];
  try {
    if (options.endpoints !== undefined) endpoints = parseEtcdEndpoints(options.endpoints);
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    throw new BadInput(`--endpoints ${JSON.stringify(options.endpoints)}: ${error.message}`);
  }
  const coord = parseCoordOptions(options);
  if (coord !== undefined && 'error' in coord) throw new BadInput(coord.error);
  if (options.class.length === 0 && options.arbiter === undefined) throw new BadInput('--class is required with --endpoints: give the YAML file that declares the key\'s LockClass (repeat --class for more files); with --arbiter the arbiters name it');
  let instance: string;
  try {
    instance = options.instance === undefined ? defaultInstance() : checkInstance(options.instance);
  } catch (error) {
    if (!isLockError(error)) throw error;
    throw new BadInput(`--instance: ${error.message.slice(error.code.length + 2)}`);
  }
  if (command.length === 0 || command[0] === '') throw new BadInput('no command given after --; name the command to run while the lock is held');
  if (options.now !== undefined && !isCivilDate(options.now)) throw new BadInput(`--now ${JSON.stringify(options.now)} is not a date; give YYYY-MM-DD`);
  if (options.class.length === 0 && options.grants.length === 0) return { endpoints, coord, classes: new ClassRegistry([]), lockClass: undefined, instance, grants: new PrefixGrants([]), waitMs, killAfterMs };
  const checked = await checkPolicyFiles([...options.class, ...options.grants], options.now, io);
  const candidates = checked.classes.filter((c) => c.namespace === key.namespace && (options.className === undefined || c.name === options.className));
  if (options.class.length === 0) return { endpoints, coord, classes: new ClassRegistry([]), lockClass: undefined, instance, grants: new PrefixGrants([]), waitMs, killAfterMs };
  if (candidates.length === 0) {
    const wanted = options.className === undefined ? `LockClass in namespace ${key.namespace}` : `LockClass ${key.namespace}/${options.className}`;
    throw new BadInput(`${options.class.join(', ')} hold no ${wanted}; a key's class must be declared in its namespace (ADR-24)`);
  }
  if (candidates.length > 1) {
    throw new BadInput(`${options.class.join(', ')} hold ${candidates.length} classes in namespace ${key.namespace} (${candidates.map((c) => c.name).join(', ')}); choose one with --class-name`);
  }
  const lockClass = candidates[0] as LockClass;
  const grants = new PrefixGrants(options.grants.length > 0 || options.identity === undefined ? checked.grants : [namespaceGrant(options.identity, lockClass.namespace)]);
  return { endpoints, coord, classes: new ClassRegistry(checked.classes), lockClass, instance, grants, waitMs, killAfterMs };
}

/**
 * The --class and --grants files read and checked, or the exit code of bad input. The YAML reader and the
 * document schemas (yaml, zod) load here, only when there are files: --arbiter alone needs neither (issue 30).
 */
async function checkPolicyFiles(files: readonly string[], now: string | undefined, io: CliIo): Promise<CheckResult> {
  const [{ formatProblem, readDocumentFiles, refuseUnreadable, todayUtc }, { checkDocuments }] = await Promise.all([import('../policy-files.js'), import('../../core/classes/check.js')]);
  const { documents, unreadable } = await readDocumentFiles([...files], io);
  refuseUnreadable(unreadable);
  const checked = checkDocuments(documents, { today: now ?? todayUtc() });
  if (checked.problems.length === 0) return checked;
  throw new BadInput(`the class or grant files have ${checked.problems.length} problem(s); fix them (lockstep class check) and run again`, { lines: checked.problems.map(formatProblem) });
}
