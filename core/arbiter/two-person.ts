// The operators' procedures of ADR-20 and ADR-03 as one function each: the first operator requests, a
// second, different one approves. Driven from src/ (lockstep admin, tests) and from scenarios/ (the
// simulator standing in for two people), so neither world writes the two steps its own way.
import type { AdvanceEpochResponse, ForceReleaseRequest, ForceReleaseResponse } from '../ports/arbiter-api.js';
import type { ArbiterService, Caller } from '../ports/caller.js';

export type TwoOperators = readonly [requester: Caller, approver: Caller];

export async function advanceEpochByTwo(service: Pick<ArbiterService, 'requestEpochAdvance' | 'approveEpochAdvance'>, [requester, approver]: TwoOperators, reason: string): Promise<AdvanceEpochResponse> {
  const proposal = await service.requestEpochAdvance(requester, { reason });
  return service.approveEpochAdvance(approver, { requestId: proposal.requestId });
}

export async function forceReleaseByTwo(service: ArbiterService, [requester, approver]: TwoOperators, request: ForceReleaseRequest): Promise<ForceReleaseResponse> {
  const proposal = await service.requestForceRelease(requester, request);
  return service.approveForceRelease(approver, { requestId: proposal.requestId, ...(request.acknowledgeUnfenced === undefined ? {} : { acknowledgeUnfenced: request.acknowledgeUnfenced }) });
}
