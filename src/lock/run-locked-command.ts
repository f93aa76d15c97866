// `lockstep lock`: hold a lock while a command runs (like `etcdctl lock`, with a token and fencing).
// The command gets the fencing token in LOCKSTEP_TOKEN (ADR-02) to present at its resource. It runs in
// a process group of its own under a fence supervisor (fence-supervisor.ts), a second process that ends
// the whole group at the ADR-12 deadline this process last sent it, or at once when this process dies,
// so that neither SIGKILL nor SIGSTOP of the process that renews the lock lets the command outlive the
// fence deadline (issue 11 S4). The token itself is never printed (ADR-22): only a fingerprint.
import { constants as osConstants } from 'node:os';
import type { FenceReason } from '../../core/client/client-session.js';
import type { LockClient, LockHandle } from '../../core/client/lock-client.js';
import { type LockError, isLockError } from '../../core/lock-error.js';
import type { Clock } from '../../core/ports/clock.js';
import { formatToken } from '../../core/token.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { monotonicFrameOf } from './monotonic-clock.js';
import { SupervisorLink, type SupervisedOutcome } from './supervisor-link.js';
import type { ForwardedSignal } from './supervisor-protocol.js';
import { type EmitLockEvent, grantedEvent, noEvents } from './lock-events.js';
import { tokenFingerprint } from './token-fingerprint.js';

export interface RunLockedOptions {
  readonly client: LockClient;
  /** The client's clock: its deadlines are carried to the supervisor in the monotonic frame. */
  readonly clock: Clock;
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
  readonly waitMs: number;
  /** Program and arguments; at least the program. */
  readonly command: readonly string[];
  /** Grace between SIGTERM and SIGKILL at the fence; below the ADR-12 margin (lock.ts checks). */
  readonly killAfterMs: number;
  /** The etcd endpoints, for messages that name a fix. */
  readonly endpoints: readonly string[];
  readonly io: CliIo;
  /** The fence supervisor, when the caller started it early (SupervisorLink.start); this function owns it from here. */
  readonly supervisor?: SupervisorLink;
  readonly env?: NodeJS.ProcessEnv;
  /** `--json`: the event stream on stdout (lock-events.ts); default none. */
  readonly emit?: EmitLockEvent;
}

/**
 * How often the supervisor's copy of the deadline is brought up to date. Lagging can only make its
 * deadline earlier than the real one, never later: a renewal it has not heard of yet moves nothing.
 */
const DEADLINE_FOLLOW_MS = 100;
const FORWARDED_SIGNALS: readonly ForwardedSignal[] = ['SIGINT', 'SIGTERM'];

/** Exit code of a command killed by a signal, as shells report it. */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}

export function exitCodeForLockError(error: LockError): number {
  switch (error.code) {
    case 'wait-timeout':
    case 'contended':
      return ExitCode.waitTimeout;
    case 'invalid-argument':
    case 'unknown-class':
      return ExitCode.badInput;
    case 'unauthenticated':
      return ExitCode.unauthenticated;
    default:
      return ExitCode.refused;
  }
}

/** What `lockstep lock` prints when the lock is refused; a log without an epoch record names its fix. */
export function describeRefusal(error: LockError, key: string, endpoints: readonly string[]): string {
  if (error.seal?.kind === 'no-epoch-record') {
    const where = endpoints.join(',');
    return (
      `lockstep lock: refused: no-epoch-record: the lock log at ${where} has no epoch record, so it grants nothing (ADR-03). ` +
      `A brand-new cluster is initialised once by its operator: lockstep init --endpoints ${where}. A wiped or replaced one must ` +
      `start above every epoch it served before: lockstep init --endpoints ${where} --epoch N (lockstep init --help)`
    );
  }
  return `lockstep: could not lock ${key}: ${error.message}`;
}

export async function runLockedCommand(options: RunLockedOptions): Promise<number> {
  const { io } = options;
  const emit = options.emit ?? noEvents;
  if (options.command.length === 0) throw new Error('runLockedCommand needs a command'); // lock.ts refuses this as bad input
  // Started before the acquire (by the caller, or here), so that its start-up overlaps the round trips to etcd.
  const supervisor = options.supervisor ?? SupervisorLink.start();
  const toMonotonic = monotonicFrameOf(options.clock);
  let fenced: FenceReason | undefined;
  const onFence = (reason: FenceReason): void => {
    fenced = reason;
    emit({ event: 'fence', key: options.key, reason });
    io.err(`lockstep: lost the lock on ${options.key} (${reason}); stopping the command's process group (ADR-12)`);
    supervisor.fence();
  };
  let handle: LockHandle;
  try {
    handle = await options.client.acquire({ key: options.key, className: options.className, ttlSeconds: options.ttlSeconds, waitMs: options.waitMs, onFence });
  } catch (error) {
    supervisor.close();
    if (!isLockError(error)) throw error;
    io.err(describeRefusal(error, options.key, options.endpoints));
    emit({ event: 'refused', key: options.key, code: error.code, message: error.message });
    return exitCodeForLockError(error);
  }
  const fingerprint = tokenFingerprint(handle.token);
  emit(grantedEvent(options.key, handle.token, fingerprint, handle.fenceDeadlineMs() - options.clock.now()));
  io.err(`lockstep: locked ${options.key} (token fingerprint ${fingerprint}; the token is in the command's LOCKSTEP_TOKEN)`);
  if (handle.grant.unprotected === true) io.err(UNPROTECTED_LINE(options.key));
  if (!(await supervisor.ready())) {
    io.err(`lockstep: could not start the fence supervisor, so the command does not run; releasing ${options.key}`);
    await releaseQuietly(handle, options);
    return ExitCode.refused;
  }
  if (fenced !== undefined) {
    supervisor.close();
    return ExitCode.fenced; // fenced before the command could start
  }
  supervisor.run({
    command: options.command,
    env: { ...unprotectedEnv(definedEnv(options.env ?? process.env), handle.grant.unprotected === true), LOCKSTEP_TOKEN: formatToken(handle.token), LOCKSTEP_KEY: options.key, LOCKSTEP_TOKEN_FINGERPRINT: fingerprint },
    deadlineMonoMs: toMonotonic(handle.fenceDeadlineMs()),
    killAfterMs: options.killAfterMs,
  });
  let sentDeadlineMs = handle.fenceDeadlineMs();
  const follow = setInterval(() => {
    const deadlineMs = handle.fenceDeadlineMs();
    if (deadlineMs <= sentDeadlineMs) return;
    sentDeadlineMs = deadlineMs;
    supervisor.moveDeadline(toMonotonic(deadlineMs));
  }, DEADLINE_FOLLOW_MS);
  const forwards = FORWARDED_SIGNALS.map((signal) => [signal, () => supervisor.forward(signal)] as const);
  for (const [signal, forward] of forwards) process.on(signal, forward);
  let outcome: SupervisedOutcome;
  try {
    outcome = await supervisor.outcome;
  } finally {
    clearInterval(follow);
    for (const [signal, forward] of forwards) process.off(signal, forward);
  }
  return finish(outcome, handle, options, () => fenced);
}

async function finish(outcome: SupervisedOutcome, handle: LockHandle, options: RunLockedOptions, fencedNow: () => FenceReason | undefined): Promise<number> {
  const { io } = options;
  if (outcome.kind === 'spawn-error') {
    io.err(`lockstep: could not run ${JSON.stringify(options.command[0])}: ${outcome.message}`);
    await releaseQuietly(handle, options);
    return 127;
  }
  if (outcome.kind === 'supervisor-lost') {
    io.err(`lockstep: the fence supervisor ${outcome.detail}; the command's process group was stopped, and its work must not be trusted`);
    return ExitCode.fenced;
  }
  if (outcome.stoppedBy === 'deadline' && fencedNow() === undefined) {
    io.err(`lockstep: the fence deadline of ${options.key} passed before a renewal reached this process; the supervisor stopped the command (ADR-12)`);
  }
  if (fencedNow() !== undefined || outcome.stoppedBy === 'deadline' || outcome.stoppedBy === 'fence') return ExitCode.fenced;
  if (outcome.stoppedBy === 'supervisor-signalled') io.err(`lockstep: the fence supervisor was signalled and stopped the command`);
  if (outcome.leftovers > 0) {
    io.err(`lockstep: the command exited leaving ${outcome.leftovers} process(es) in its group; they were stopped before ${options.key} was released`);
  }
  await handle.release().then(
    (released) => options.emit?.({ event: 'released', key: options.key, released }),
    (error: unknown) => {
      io.err(`lockstep: release of ${options.key} failed (${error instanceof Error ? error.message : String(error)}); the hold ends when the session expires`);
    },
  );
  if (outcome.signal !== null) return signalExitCode(outcome.signal);
  return outcome.code ?? ExitCode.failed;
}

async function releaseQuietly(handle: LockHandle, options: RunLockedOptions): Promise<void> {
  await handle.release().then(
    (released) => options.emit?.({ event: 'released', key: options.key, released }),
    () => options.io.err(`lockstep: release of ${options.key} failed; the hold ends when the session expires`),
  );
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** ADR-04: said once on stderr when the grant came from an arbiter's memory during a quorum outage. */
const UNPROTECTED_LINE = (key: string): string =>
  `lockstep: the grant of ${key} is UNPROTECTED (ADR-04): etcd has no quorum and the arbiter granted this efficiency class from its memory with token 0, which every fence refuses; another holder may hold ${key} at the same time (LOCKSTEP_UNPROTECTED=1 is set)`;

/** The command's LOCKSTEP_UNPROTECTED is 1 for a grant from memory and absent otherwise, whatever lockstep itself inherited. */
function unprotectedEnv(env: Record<string, string>, unprotected: boolean): Record<string, string> {
  const own = Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'LOCKSTEP_UNPROTECTED'));
  return unprotected ? { ...own, LOCKSTEP_UNPROTECTED: '1' } : own;
}
