// The arbiter's two-person operator procedures (ADR-20 force-release, ADR-03 epoch advance): the pending
// proposals and the operator checks, apart from the grant path. The Arbiter delegates to it; what a procedure
// changes in the arbiter (its seal, its epoch, its waiters) it reaches through OperatorDeskDeps.
import { LockError } from '../lock-error.js';
import { type LockKey, parseLockKey } from '../lock-key.js';
import type {
  AdvanceEpochRequest,
  AdvanceEpochResponse,
  ApproveEpochAdvanceRequest,
  ApproveForceReleaseRequest,
  EpochAdvanceProposal,
  ForceReleaseProposal,
  ForceReleaseRequest,
  ForceReleaseResponse,
} from '../ports/arbiter-api.js';
import type { Caller } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { advanceEpoch, forceRelease, proposeForceRelease } from './admin.js';
import { PendingApprovals, checkAuthenticated, checkReason } from './approvals.js';
import type { EpochSource } from './epoch-source.js';
import type { EpochState } from './epoch-state.js';
import { readHold } from './inspect.js';
import type { LogGateway } from './log-gateway.js';
import type { Authorizer, ClassLookup } from './policy.js';
import type { SealGuard } from './seal-guard.js';

/** The ArbiterOptions the desk reads. */
export interface OperatorDeskOptions {
  readonly clock: Clock;
  readonly classes: ClassLookup;
  readonly authorizer: Authorizer;
  readonly approvalIdPrefix?: string;
  readonly epochSource?: EpochSource;
}

export interface OperatorDeskDeps {
  readonly gateway: LogGateway;
  readonly guard: SealGuard;
  readonly epoch: EpochState;
  /** ADR-08/09: the arbiter's placement check (a key homed elsewhere is redirected). */
  checkPlacement(key: LockKey): void;
  /** Wakes the waiters of one key, or (undefined) of every key. */
  wake(key: string | undefined): void;
}

export class OperatorDesk {
  private readonly forceReleases: PendingApprovals<Omit<ForceReleaseProposal, 'requestId'>>;
  private readonly advances: PendingApprovals<Omit<EpochAdvanceProposal, 'requestId'>>;

  constructor(
    private readonly options: OperatorDeskOptions,
    private readonly deps: OperatorDeskDeps,
  ) {
    this.forceReleases = new PendingApprovals('force-release', options.clock, options.approvalIdPrefix ?? '');
    this.advances = new PendingApprovals('epoch-advance', options.clock, options.approvalIdPrefix ?? '');
  }

  /** ADR-20: the first of two operators; nothing is written, and the answer shows the class's enforcement. */
  async requestForceRelease(caller: Caller, request: ForceReleaseRequest): Promise<ForceReleaseProposal> {
    const key = this.checkKeyOperator(caller, 'requester', request.key);
    checkReason(request.reason);
    this.deps.checkPlacement(key);
    const shown = await proposeForceRelease(this.options.classes, request, (read) => readHold(this.deps.epoch, read));
    const proposal = this.forceReleases.propose(caller.identity, { key: key.text, holder: shown.holder, enforcement: shown.enforcement, requester: caller.identity, reason: request.reason.trim() }, key.namespace);
    return { ...proposal.value, requestId: proposal.requestId };
  }

  /** ADR-20: a second, different operator; one txn deletes the hold and writes the force record. */
  async approveForceRelease(caller: Caller, request: ApproveForceReleaseRequest): Promise<ForceReleaseResponse> {
    // Check, then change (issue 28): an approver with no operator grant is refused before the table is
    // even looked at, and one without a grant over the proposal's key before the proposal is taken out.
    const approver = checkAuthenticated(caller, 'approver');
    this.checkLogOperator(caller, 'approver');
    const proposal = this.forceReleases.claim(approver, String(request.requestId), (pending) => this.checkKeyOperator(caller, 'approver', pending.value.key));
    const key = parseLockKey(proposal.value.key);
    // The hold is read again in the release's own txn: a proposal is never trusted to still be true.
    const response = await forceRelease(
      this.deps.gateway,
      this.options.classes,
      {
        key: key.text,
        reason: proposal.value.reason,
        expectedToken: String(proposal.value.holder.token),
        requester: proposal.requester,
        approver,
        ...(request.acknowledgeUnfenced === undefined ? {} : { acknowledgeUnfenced: request.acknowledgeUnfenced }),
      },
      (read) => readHold(this.deps.epoch, read),
    );
    if (response.released) this.deps.wake(key.text);
    return response;
  }

  /** ADR-03: the first of two operators proposes advancing a sealed log's epoch. Nothing is read. */
  async requestEpochAdvance(caller: Caller, request: AdvanceEpochRequest): Promise<EpochAdvanceProposal> {
    this.checkLogOperator(caller, 'requester');
    const reason = checkReason(request.reason);
    const proposal = this.advances.propose(caller.identity, { requester: caller.identity, reason });
    return { ...proposal.value, requestId: proposal.requestId };
  }

  async approveEpochAdvance(caller: Caller, request: ApproveEpochAdvanceRequest): Promise<AdvanceEpochResponse> {
    const approver = checkAuthenticated(caller, 'approver');
    this.checkLogOperator(caller, 'approver');
    const proposal = this.advances.claim(approver, String(request.requestId));
    const response = await advanceEpoch(this.deps.gateway, { approvers: [proposal.requester, approver], reason: proposal.value.reason }, this.deps.epoch.floor(), this.options.epochSource);
    this.deps.guard.reset(response.clusterId, response.revision);
    this.deps.gateway.confirmedByAdvance();
    this.deps.epoch.adopt(response.epochKv);
    this.deps.wake(undefined);
    return { epoch: response.epoch, clusterId: response.clusterId, holdsDeleted: response.holdsDeleted, requester: proposal.requester, approver };
  }

  /**
   * ADR-20: an operator is an authenticated identity with an operator grant covering the key (any operator
   * grant for an epoch advance). A refusal reads nothing and is the same whether or not the key is held.
   */
  private checkKeyOperator(caller: Caller, role: string, keyText: string): LockKey {
    const key = parseLockKey(keyText);
    this.refuseUnlessOperator(checkAuthenticated(caller, role), key.text);
    return key;
  }

  private checkLogOperator(caller: Caller, role: string): void {
    this.refuseUnlessOperator(checkAuthenticated(caller, role), undefined);
  }

  private refuseUnlessOperator(identity: string, key: string | undefined): void {
    if (!this.options.authorizer.operates(identity, key)) {
      throw new LockError('denied', `${identity} has no operator grant covering ${key ?? 'this log'}; force-releases and epoch advances need a LockGrant with role: operator (ADR-20)`);
    }
  }
}
