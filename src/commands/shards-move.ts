// `lockstep shards move --from A --to B --range R` (issue 19, ADR-09/20): a range move between two entity
// shards, an admin action with two approvers like an epoch advance. The first operator requests it with a
// reason; a second, different one approves it by its id (--approve ID, the same --from/--to/--range), and
// the arbiter of the topology (lockstep serve --topology) runs core's procedure: drain, wait for holds,
// advance the destination above the source, flip the shard map. The move is journalled on the coord
// cluster step by step, so after any crash the same request and approval resume it where it stopped.
// Both operators are the SPIFFE IDs of their client certificates (ADR-19): --tls-cert, --tls-key, --ca.
import type { Command } from 'commander';
import { isLockError } from '../../core/lock-error.js';
import { DEFAULT_DRAIN_WAIT_MS } from '../../core/shards/shard-move.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { connectRemote } from '../lock/remote-arbiter.js';
import { oneLine } from '../terminal-text.js';

/** The drain window in the words an operator reads (shard-move.ts's default). */
const DRAIN_WINDOW = `${DEFAULT_DRAIN_WAIT_MS / 1000} s`;

interface MoveOptions {
  from?: string;
  to?: string;
  range?: string;
  reason?: string;
  approve?: string;
  arbiter?: string;
  tlsCert?: string;
  tlsKey?: string;
  ca?: string;
  json?: boolean;
}

export function registerShardsMoveCommand(shards: Command, io: CliIo, setExitCode: (code: number) => void): void {
  shards
    .command('move')
    .description(
      'Move a range (a homing unit, namespace/first-segment) from one entity shard to another (ADR-09), with two operators (ADR-20). ' +
        'The first runs it with --reason and gets a request id; a second, different operator runs it again with --approve ID, and the ' +
        'arbiter (lockstep serve --topology) drains the range (no new grants), waits for its holds to end (up to the drain window, ' +
        `${DRAIN_WINDOW}), advances the destination's epoch above the source's so its tokens start above every token ` +
        'the source issued, and flips the shard map; arbiters watching the map serve the range from the destination at once. Each step is ' +
        'recorded on the coord cluster: after a crash or a drain that ran out, request and approve the same move again and it resumes. ' +
        'Exit 0 requested or moved; 2 bad input (a flag, a range not homed on --from, an unknown shard); 5 refused (not an operator, the ' +
        'same operator approving, an unknown or used request id, a sealed shard, holds left after the drain window).',
    )
    .option('--from <shard>', 'the entity shard the range is homed on now (as the shard map names it)')
    .option('--to <shard>', 'the entity shard to move it to, in the same region')
    .option('--range <unit>', 'the homing unit to move: namespace/first-segment (or a namespace with its own override)')
    .option('--reason <text>', 'with the request: why (at least 10 characters; kept in the move\'s journal and the destination\'s advance)')
    .option('--approve <request-id>', 'approve and run the move another operator requested (its id, printed by the request)')
    .option('--arbiter <list>', 'lockstep serve --topology arbiters, host:port[,host:port...]')
    .option('--tls-cert <file>', 'your client certificate (PEM): its spiffe:// URI SAN is the operator')
    .option('--tls-key <file>', 'the client certificate\'s key (PEM)')
    .option('--ca <file>', 'the CA (PEM) that signed the arbiters\' certificates')
    .option('--json', 'print the request or the finished move as one JSON object on stdout')
    // `--json` is also a flag of `lockstep shards` (sizing), and commander gives it to the parent: read both.
    .action(async (_options: MoveOptions, command: Command) => {
      setExitCode(await runShardsMove(command.optsWithGlobals<MoveOptions>(), io));
    });
}

export async function runShardsMove(options: MoveOptions, io: CliIo): Promise<number> {
  const missing = (['from', 'to', 'range', 'arbiter'] as const).find((flag) => options[flag] === undefined);
  if (missing !== undefined) throw new BadInput(`--${missing} is required: lockstep shards move --from A --to B --range NS/SEGMENT --arbiter H:P --tls-cert F --tls-key F --ca F (--reason TEXT | --approve ID)`);
  if ((options.reason === undefined) === (options.approve === undefined)) throw new BadInput('give --reason TEXT to request the move, or --approve ID to approve one another operator requested; not both');
  if (options.tlsCert === undefined || options.tlsKey === undefined || options.ca === undefined) throw new BadInput('--tls-cert, --tls-key and --ca are required: a move needs authenticated operators (ADR-20), each named by their certificate');
  const remote = await connectRemote({ arbiter: options.arbiter as string, tlsCert: options.tlsCert, tlsKey: options.tlsKey, ca: options.ca });
  if ('refused' in remote) throw new BadInput(remote.refused);
  const move = { range: options.range as string, from: options.from as string, to: options.to as string };
  try {
    if (options.reason !== undefined) {
      const proposal = await remote.arbiter.requestShardMove({ ...move, reason: options.reason });
      if (options.json === true) io.out(JSON.stringify({ requested: true, ...proposal }));
      const resume = proposal.recordedStep === undefined ? '' : ` (the coord cluster records it at step ${proposal.recordedStep}: approving resumes it there)`;
      io.err(oneLine(`lockstep shards move: ${proposal.requester} requested moving ${move.range} from ${move.from} to ${move.to}${resume}; request ${proposal.requestId}`));
      io.err(oneLine(`lockstep shards move: a second, different operator approves within 30 min with: lockstep shards move --from ${move.from} --to ${move.to} --range ${move.range} --approve ${proposal.requestId} --arbiter ${options.arbiter} (their own --tls-cert, --tls-key, --ca)`));
      return ExitCode.ok;
    }
    io.err(oneLine(`lockstep shards move: ${remote.identity} approves ${options.approve}: the arbiter drains ${move.range} on ${move.from}, waits for its holds (up to ${DRAIN_WINDOW}), advances ${move.to}'s epoch and flips the map...`));
    const done = await remote.arbiter.approveShardMove({ requestId: options.approve as string, ...move });
    const summary = { range: done.range, from: done.from, to: done.to, step: done.step, requester: done.requester, approver: done.approver, fromEpoch: done.fromEpoch, toEpoch: done.toEpoch, mapVersion: done.mapVersion };
    if (options.json === true) io.out(JSON.stringify({ moved: true, ...summary }));
    io.err(oneLine(`lockstep shards move: ${done.range} is served by ${done.to} (shard map v${done.mapVersion}); its epoch ${done.toEpoch} is above ${done.from}'s ${done.fromEpoch}, so its tokens start above every token ${done.from} issued. Requested by ${done.requester}, approved by ${done.approver}`));
    return ExitCode.ok;
  } catch (error) {
    if (!isLockError(error)) throw error;
    const message = `${options.approve === undefined ? 'request' : `approval of ${options.approve}`} refused (${error.code}): ${error.message}`;
    throw error.code === 'invalid-argument' ? new BadInput(message) : new Refusal(message, ExitCode.refused);
  } finally {
    remote.arbiter.close();
  }
}
