// admin.v1's handlers (ADR-20, ADR-03): the two-person actions, each half from its own authenticated
// caller; the arbiter checks who may do what (core/arbiter/approvals.ts).
import type { ServiceImpl } from '@connectrpc/connect';
import { LockError } from '../../core/lock-error.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import type { ShardMoveDesk } from '../../core/shards/move-desk.js';
import { AdminService } from '../gen/lockstep/admin/v1/admin_pb.js';
import type { CallGuard } from './call-guard.js';
import { sealToWire } from './wire-errors.js';
import { enforcementToWire, holderToWire } from './wire-messages.js';

/** Shard moves are served only by an arbiter of a topology (lockstep serve --topology); elsewhere they are refused. */
export type MoveDesk = Pick<ShardMoveDesk, 'request' | 'approve'>;

const NO_TOPOLOGY: MoveDesk = {
  request: () => Promise.reject(new LockError('invalid-argument', 'this arbiter serves one cluster; shard moves go to an arbiter started with lockstep serve --topology FILE (ADR-09)')),
  approve: () => Promise.reject(new LockError('invalid-argument', 'this arbiter serves one cluster; shard moves go to an arbiter started with lockstep serve --topology FILE (ADR-09)')),
};

export function adminServiceImpl(arbiter: ArbiterService, guard: CallGuard, moves: MoveDesk = NO_TOPOLOGY): ServiceImpl<typeof AdminService> {
  return {
    requestForceRelease: (request, context) =>
      guard.run(context, async (caller) => {
        const proposal = await arbiter.requestForceRelease(caller, { key: request.key, expectedToken: request.expectedToken, reason: request.reason, acknowledgeUnfenced: request.acknowledgeUnfenced });
        return { requestId: proposal.requestId, key: proposal.key, holder: holderToWire(proposal.holder), enforcement: enforcementToWire(proposal.enforcement), requester: proposal.requester, reason: proposal.reason };
      }, true),
    approveForceRelease: (request, context) =>
      guard.run(context, async (caller) => {
        const done = await arbiter.approveForceRelease(caller, { requestId: request.requestId, acknowledgeUnfenced: request.acknowledgeUnfenced });
        return { released: done.released, enforcement: enforcementToWire(done.enforcement), recordKey: done.recordKey, requester: done.requester, approver: done.approver };
      }),
    requestEpochAdvance: (request, context) => guard.run(context, (caller) => arbiter.requestEpochAdvance(caller, { reason: request.reason }), true),
    approveEpochAdvance: (request, context) =>
      guard.run(context, async (caller) => {
        const done = await arbiter.approveEpochAdvance(caller, { requestId: request.requestId });
        return { epoch: done.epoch, clusterId: done.clusterId.toString(), holdsDeleted: done.holdsDeleted, requester: done.requester, approver: done.approver };
      }),
    requestShardMove: (request, context) =>
      guard.run(context, async (caller) => {
        const proposal = await moves.request(caller, { range: request.range, from: request.from, to: request.to, reason: request.reason });
        return { ...proposal, recordedStep: proposal.recordedStep ?? '' };
      }, true),
    approveShardMove: (request, context) =>
      guard.run(context, async (caller) => {
        const done = await moves.approve(caller, request.requestId, { range: request.range, from: request.from, to: request.to });
        const { range, from, to, step, requester, approver } = done.record;
        return { range, from, to, step, requester, approver, fromEpoch: done.fromEpoch, toEpoch: done.toEpoch, mapVersion: done.mapVersion };
      }, true),
    getStatus: (_request, context) =>
      guard.run(context, async (caller) => {
        const status = await arbiter.status(caller);
        return { epoch: status.epoch ?? 0, clusterId: status.clusterId?.toString() ?? '', ...(status.sealed === undefined ? {} : { sealed: sealToWire(status.sealed) }) };
      }),
  };
}
