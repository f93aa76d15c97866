// `lockstep admin`: the operator's CLI over admin.v1 (ADR-20, ADR-03; issue 29), with the operator's own
// certificate (--tls-cert/--tls-key/--ca, as `lock --arbiter`): status, inspect, and the two-person actions,
// each half run by a different operator. A request prints the id its approver names; `admin approve ID`
// approves a force-release or an epoch advance (the id says which: <arbiter>-force-release-N or
// <arbiter>-epoch-advance-N). The token of a hold is never printed: a force-release reads it from Inspect
// and sends it back as the hold it means (expectedToken), so nobody types or sees it (ADR-22).
import type { Command } from 'commander';
import { isLockError } from '../../core/lock-error.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { type RemoteOptions, connectRemote } from '../lock/remote-arbiter.js';
import { exitCodeForLockError } from '../lock/run-locked-command.js';
import type { NetworkArbiter } from '../client/network-arbiter.js';
import { formatAdminAnswer } from './admin-output.js';

interface AdminOptions {
  arbiter: string;
  tlsCert?: string;
  tlsKey?: string;
  ca?: string;
  identity?: string;
  json?: boolean;
  reason?: string;
  acknowledgeUnfenced?: boolean;
}

const EXIT_HELP =
  'Exit: 0 done; 2 bad input; 5 refused (denied: not an operator of the key; approval-required: the same operator cannot approve ' +
  'its own request, or an advisory class needs --acknowledge-unfenced; stale: the request expired, was approved, or the hold ' +
  'changed; sealed; unreachable); 6 not authenticated (the TLS handshake was refused or --ca is wrong: the message says which).';
/** A reason is written into the /sys/force record and the logs: bounded. */
const MAX_REASON = 500;

export function registerAdminCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const admin = program
    .command('admin')
    .description('An operator\'s actions over admin.v1 (ADR-20, ADR-03), with the operator\'s certificate: status, inspect, force-release and epoch advance (two operators each). ' + EXIT_HELP);
  const sub = (name: string, description: string): Command =>
    admin
      .command(name)
      .description(`${description} ${EXIT_HELP}`)
      .requiredOption('--arbiter <list>', 'lockstep serve arbiters, host:port[,host:port...]')
      .option('--tls-cert <file>', 'the operator\'s client certificate (PEM); its spiffe:// URI SAN is the operator')
      .option('--tls-key <file>', 'the client certificate\'s key (PEM)')
      .option('--ca <file>', 'the CA (PEM) that signed the arbiters\' certificates')
      .option('--identity <id>', 'without TLS only: the identity claimed (unauthenticated: never an operator, ADR-20)')
      .option('--json', 'print the answer as one JSON object on stdout, for scripts');
  const run = (action: (arbiter: NetworkArbiter, options: AdminOptions) => Promise<object>) => async (...args: unknown[]) => {
    const options = args.find((a): a is AdminOptions => typeof a === 'object' && a !== null && 'arbiter' in a) as AdminOptions;
    setExitCode(await runAdmin(options, io, (arbiter) => action(arbiter, options)));
  };
  sub('status', 'Each arbiter\'s epoch, cluster id and seal, or why it did not answer.').action(run((arbiter) => status(arbiter)));
  sub('inspect', 'Who holds KEY: identity, session, class and the class\'s enforcement (fenced or advisory). Never the token.')
    .argument('<key>', 'the lock key, namespace/path')
    .action(async (key: string, options: AdminOptions) => setExitCode(await runAdmin(options, io, async (arbiter) => ({ kind: 'inspect', ...inspectView(await arbiter.inspect(key)) }))));
  sub('force-release', 'Request ending the hold on KEY now (the first of two operators); prints the id a second operator approves.')
    .argument('<key>', 'the lock key, namespace/path')
    .requiredOption('--reason <text>', 'why, recorded in the /sys/force record with both operators')
    .option('--acknowledge-unfenced', 'required for an advisory class: two writers may act at once after the release')
    .action(async (key: string, options: AdminOptions) => setExitCode(await runAdmin(options, io, (arbiter) => requestForceRelease(arbiter, key, options))));
  sub('advance-epoch', 'Request advancing the epoch of a sealed log (the first of two operators, ADR-03); prints the id a second operator approves.')
    .requiredOption('--reason <text>', 'why, recorded with both operators')
    .action(run(async (arbiter, options) => ({ kind: 'epoch-advance-requested', ...(await arbiter.requestEpochAdvance({ reason: reasonOf(options) })) })));
  sub('approve', 'Approve a force-release or an epoch advance another operator requested, by its id.')
    .argument('<id>', 'the request id the requester was given')
    .option('--acknowledge-unfenced', 'required for a force-release of an advisory class, from the approver too')
    .action(async (id: string, options: AdminOptions) => setExitCode(await runAdmin(options, io, (arbiter) => approve(arbiter, id, options))));
}

async function runAdmin(options: AdminOptions, io: CliIo, action: (arbiter: NetworkArbiter) => Promise<object>): Promise<number> {
  const remote = await connectRemote(pickRemote(options));
  if ('refused' in remote) throw remote.unauthenticated === true ? new Refusal(remote.refused, ExitCode.unauthenticated) : new BadInput(remote.refused);
  try {
    const answer = await action(remote.arbiter);
    io.out(options.json === true ? JSON.stringify(answer) : formatAdminAnswer(answer));
    return ExitCode.ok;
  } catch (error) {
    if (!isLockError(error)) throw error;
    throw new Refusal(`refused: ${error.message}`, exitCodeForLockError(error), options.json === true ? { json: { kind: 'refused', code: error.code, message: error.message } } : {});
  } finally {
    remote.arbiter.close();
  }
}

function pickRemote(options: AdminOptions): RemoteOptions {
  return {
    arbiter: options.arbiter,
    ...(options.tlsCert === undefined ? {} : { tlsCert: options.tlsCert }),
    ...(options.tlsKey === undefined ? {} : { tlsKey: options.tlsKey }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.identity === undefined ? {} : { identity: options.identity }),
  };
}

function reasonOf(options: AdminOptions): string {
  const reason = (options.reason ?? '').trim();
  if (reason === '' || reason.length > MAX_REASON) throw new BadInput(`--reason must say why, in 1 to ${MAX_REASON} characters (it is recorded with both operators, ADR-20); got ${reason.length}`);
  return reason;
}

async function status(arbiter: NetworkArbiter): Promise<object> {
  const arbiters = await Promise.all(arbiter.addresses.map(async (address) => {
    try {
      const s = await arbiter.statusOf(address);
      return { address, epoch: s.epoch ?? null, clusterId: s.clusterId?.toString() ?? null, sealed: s.sealed?.kind ?? null };
    } catch (error) {
      if (!isLockError(error) || error.code === 'unauthenticated') throw error;
      return { address, error: error.message };
    }
  }));
  return { kind: 'status', arbiters };
}

type Holder = NonNullable<Awaited<ReturnType<NetworkArbiter['inspect']>>['holder']>;

/** Every field of a holder the service gives (the instance too, once lock.v1 carries it) but the token (ADR-22). */
function holderView(holder: Holder): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [field, value] of Object.entries(holder)) if (field !== 'token' && value !== undefined) shown[field] = String(value);
  return shown;
}

function inspectView(answer: Awaited<ReturnType<NetworkArbiter['inspect']>>): object {
  return { key: answer.key, held: answer.holder !== undefined, holder: answer.holder === undefined ? null : holderView(answer.holder), enforcement: answer.enforcement ?? null };
}

async function requestForceRelease(arbiter: NetworkArbiter, key: string, options: AdminOptions): Promise<object> {
  const reason = reasonOf(options);
  const seen = await arbiter.inspect(key);
  if (seen.holder === undefined) return { kind: 'not-held', key };
  const proposal = await arbiter.requestForceRelease({ key, expectedToken: seen.holder.token.toString(), reason, acknowledgeUnfenced: options.acknowledgeUnfenced === true });
  return { kind: 'force-release-requested', requestId: proposal.requestId, key: proposal.key, holder: holderView(proposal.holder), enforcement: proposal.enforcement, requester: proposal.requester, reason: proposal.reason };
}

async function approve(arbiter: NetworkArbiter, id: string, options: AdminOptions): Promise<object> {
  if (!/^[\w.-]{1,120}$/.test(id)) throw new BadInput(`request id ${JSON.stringify(id.slice(0, 120))} is not one an arbiter gives (letters, digits, '-', '.', at most 120): copy it from the requester's output`);
  if (/-epoch-advance-\d+$/.test(id)) {
    const done = await arbiter.approveEpochAdvance({ requestId: id });
    return { kind: 'epoch-advanced', epoch: done.epoch, clusterId: done.clusterId.toString(), holdsDeleted: done.holdsDeleted, requester: done.requester, approver: done.approver };
  }
  return { kind: 'force-released', ...(await arbiter.approveForceRelease({ requestId: id, acknowledgeUnfenced: options.acknowledgeUnfenced === true })) };
}
