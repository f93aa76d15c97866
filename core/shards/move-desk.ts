// `lockstep shards move` on the arbiter's side (issue 19, ADR-09/20): a range move is an operator action
// like an epoch advance. A first authenticated operator requests it with a reason; a second, different
// one approves it by the request's id, and the approval runs core's procedure (shard-move.ts) on this
// arbiter, whose topology reaches the coord cluster (the map and the move's journal) and both shards.
// The destination's epoch advance inside the move is made by the same two people. A move that stopped
// (a crash, a drain window that ran out) is resumed by requesting and approving it again: the journal on
// the coord cluster says where it was.
import { LockError } from '../lock-error.js';
import { type Caller, authenticated } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { PendingApprovals, checkAuthenticated, checkReason } from '../arbiter/approvals.js';
import type { Authorizer } from '../arbiter/policy.js';
import { checkMovable, type RangeMove } from './move-map.js';
import { type MoveRecord, type ShardMoveOptions, type ShardMovePorts, runShardMove } from './shard-move.js';

export interface MoveProposal extends RangeMove {
  readonly requestId: string;
  readonly requester: string;
  readonly reason: string;
  /** The step the journal records for this range (a move being resumed), or undefined for a new one. */
  readonly recordedStep: MoveRecord['step'] | undefined;
}

export interface MoveDone {
  readonly record: MoveRecord;
  readonly fromEpoch: number;
  readonly toEpoch: number;
  readonly mapVersion: number;
}

export class ShardMoveDesk {
  private readonly pending: PendingApprovals<Omit<MoveProposal, 'requestId'>>;

  constructor(
    private readonly ports: ShardMovePorts,
    private readonly authorizer: Authorizer,
    clock: Clock,
    idPrefix: string,
    private readonly options: ShardMoveOptions = {},
  ) {
    this.pending = new PendingApprovals('shard-move', clock, idPrefix);
  }

  /** The first operator: checks the move against the map and the journal; nothing is written. */
  async request(caller: Caller, move: RangeMove & { readonly reason: string }): Promise<MoveProposal> {
    const requester = this.checkOperator(caller, 'requester');
    const reason = checkReason(move.reason);
    const recorded = await this.ports.journal.load(move.range);
    const resuming = recorded !== undefined && recorded.step !== 'flipped';
    if (resuming && (recorded.from !== move.from || recorded.to !== move.to)) {
      throw new LockError('invalid-argument', `range ${move.range} is already moving from ${recorded.from} to ${recorded.to} (step ${recorded.step}); request that move to resume it`);
    }
    if (!resuming) checkMovable(await this.ports.maps.read(), move);
    const value = { range: move.range, from: move.from, to: move.to, requester, reason, recordedStep: resuming ? recorded.step : undefined };
    const proposal = this.pending.propose(requester, value);
    return { ...value, requestId: proposal.requestId };
  }

  /** The second operator: runs (or resumes) the move; resolves with its final record once the map flipped. */
  async approve(caller: Caller, requestId: string, expected: RangeMove): Promise<MoveDone> {
    const approver = this.checkOperator(caller, 'approver');
    // The approver approves what they name, never a request they did not read. Checked before the
    // request leaves the table (issue 28: check, then change), so a refused approval leaves it waiting.
    const proposal = this.pending.claim(approver, requestId, ({ value }) => {
      if (value.range !== expected.range || value.from !== expected.from || value.to !== expected.to) {
        throw new LockError('invalid-argument', `${requestId} moves ${value.range} from ${value.from} to ${value.to}, not ${expected.range} from ${expected.from} to ${expected.to}; nothing was done, and the request still waits for the approval of what it names`);
      }
    });
    const { range, from, to, reason, requester } = proposal.value;
    // Both were proven by the transport when they called (checkOperator): the advance inside is theirs.
    const operators = [authenticated(requester), authenticated(approver)] as const;
    const record = await runShardMove(this.ports, { range, from, to, reason, operators }, this.options);
    const epochOf = async (shard: string): Promise<number> => (await this.ports.arbiterOf(shard).status(operators[0])).epoch ?? 0;
    return { record, fromEpoch: await epochOf(from), toEpoch: await epochOf(to), mapVersion: (await this.ports.maps.read()).version };
  }

  private checkOperator(caller: Caller, role: string): string {
    const identity = checkAuthenticated(caller, role);
    if (!this.authorizer.operates(identity, undefined)) {
      throw new LockError('denied', `${identity} has no operator grant covering the whole log; a shard move needs a LockGrant with role: operator (ADR-20)`);
    }
    return identity;
  }
}
