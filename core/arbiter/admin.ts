// Operator actions that end holds they do not own: force-release (ADR-20) and epoch advance (ADR-03).
// Both need two different people and a reason; both are one txn, so they either happen whole or not.
import { LockError } from '../lock-error.js';
import { type LockKey, holderKeyOf, parseLockKey, HOLDER_PREFIX, WAITER_PREFIX } from '../lock-key.js';
import type { ForceReleaseRequest, ForceReleaseResponse, Holder } from '../ports/arbiter-api.js';
import type { KeyValue } from '../ports/lock-log.js';
import { EPOCH_LIMIT, formatToken, parseToken } from '../token.js';
import type { Revision } from '../units.js';
import { checkReason } from './approvals.js';
import { type EpochSource, SINGLE_CLUSTER_EPOCHS } from './epoch-source.js';
import type { HoldRead } from './inspect.js';
import type { LogGateway } from './log-gateway.js';
import type { ClassLookup } from './policy.js';
import { EPOCH_KEY, FORCE_PREFIX, formatEpochRecord, formatForceRecord, parseEpochRecord } from './records.js';
import { checkIdentity } from './sessions.js';

/** Force records live a day on their own lease, long enough for the audit tailer to copy them (ADR-20/21). */
export const FORCE_RECORD_TTL_SECONDS = 24 * 60 * 60;

/** A force-release once a second operator approved it (approvals.ts). */
export interface ApprovedForceRelease extends ForceReleaseRequest {
  readonly requester: string;
  readonly approver: string;
}

/** An epoch advance once a second operator approved it. */
export interface ApprovedAdvance {
  readonly approvers: readonly [string, string];
  readonly reason: string;
}

function checkTwoPeople(first: string, second: string, roles: string): void {
  checkIdentity(first, roles.split(' and ')[0]);
  checkIdentity(second, roles.split(' and ')[1]);
  if (first === second) {
    throw new LockError('approval-required', `${roles} are both ${first}; a second, different operator must approve (ADR-20)`);
  }
}

/** What the requester is shown before anyone approves (ADR-20): the hold and whether its class is fenced. */
export async function proposeForceRelease(classes: ClassLookup, request: ForceReleaseRequest, readHold: (key: LockKey) => Promise<HoldRead>): Promise<{ holder: Holder; enforcement: 'fenced' | 'advisory' }> {
  checkReason(request.reason);
  const key = parseLockKey(request.key);
  const expected = parseToken(request.expectedToken);
  const { holder, token } = await readHold(key);
  if (holder === undefined || token !== expected) {
    throw new LockError('stale', `${key.text} is no longer held with token ${request.expectedToken}; inspect it again before requesting a release`, { tokens: [request.expectedToken] });
  }
  const enforcement = checkEnforcement(classes, key, holder.className, request.acknowledgeUnfenced);
  return { holder: { ...holder, token }, enforcement };
}

function checkEnforcement(classes: ClassLookup, key: LockKey, className: string, acknowledged: boolean | undefined): 'fenced' | 'advisory' {
  const enforcement = classes.get(key.namespace, className)?.enforcement ?? 'advisory';
  if (enforcement === 'advisory' && acknowledged !== true) {
    // ADR-20: tell the operator whether the action is safe at the moment they choose it.
    throw new LockError('approval-required', `${key.text} is guarded by advisory class ${className}: its resource does not check tokens, so the current holder may keep writing after this release. Acknowledge that two writers may act at once to proceed`);
  }
  return enforcement;
}

/**
 * `readHold` is asked only once the request has passed every check, so bad input touches no log. It reads
 * the hold with the epoch record in one txn: the token the operator saw is compared with the hold packed
 * with the log's epoch, not a cached one (issue 11, S2).
 */
export async function forceRelease(gateway: LogGateway, classes: ClassLookup, request: ApprovedForceRelease, readHold: (key: LockKey) => Promise<HoldRead>): Promise<ForceReleaseResponse> {
  checkTwoPeople(request.requester, request.approver, 'requester and approver');
  const reason = checkReason(request.reason);
  const key = parseLockKey(request.key);
  const expected = parseToken(request.expectedToken);
  const holderKey = holderKeyOf(key);
  const { kv, holder, token } = await readHold(key);
  if (kv === undefined || holder === undefined || token !== expected) {
    throw new LockError('stale', `${key.text} is no longer held with token ${request.expectedToken}; inspect it again before releasing`, { tokens: [request.expectedToken] });
  }
  const enforcement = checkEnforcement(classes, key, holder.className, request.acknowledgeUnfenced);
  const lease = await gateway.leaseGrant(FORCE_RECORD_TTL_SECONDS);
  const recordKey = `${FORCE_PREFIX}${key.text}/${kv.createRevision}`;
  const record = formatForceRecord({
    key: key.text,
    token: formatToken(expected),
    holder: holder.identity,
    requester: request.requester,
    approver: request.approver,
    reason,
    enforcement,
  });
  const response = await gateway.txn({
    compare: [{ key: holderKey, target: 'create', op: '=', value: kv.createRevision }],
    success: [
      { type: 'delete', key: holderKey },
      { type: 'put', key: recordKey, value: record, lease: lease.id },
    ],
    failure: [],
  });
  if (!response.succeeded) {
    await gateway.leaseRevoke(lease.id, ['lease-not-found']).catch(() => undefined);
    throw new LockError('stale', `${key.text} changed hands while the force-release was being written; inspect it again`);
  }
  return { released: true, enforcement, recordKey, requester: request.requester, approver: request.approver };
}

export interface EpochAdvanced {
  readonly epoch: number;
  readonly clusterId: bigint;
  readonly revision: Revision;
  readonly holdsDeleted: number;
  readonly epochKv: KeyValue;
}

/**
 * ADR-03: one txn sets epoch E+1 bound to the cluster ID the log answers with now, and deletes every
 * hold and durable waiter, so no restored hold survives into the new epoch. Runs while sealed.
 * `servedEpoch` is the highest epoch this arbiter has minted tokens in (0 if none).
 */
export async function advanceEpoch(gateway: LogGateway, request: ApprovedAdvance, servedEpoch: number, source: EpochSource = SINGLE_CLUSTER_EPOCHS): Promise<EpochAdvanced> {
  const [first, second] = request.approvers;
  checkTwoPeople(first, second, 'first approver and second approver');
  checkReason(request.reason);
  const read = await gateway.range({ key: EPOCH_KEY }, { whileSealed: true });
  const kv = read.kvs[0];
  const old = kv === undefined ? undefined : parseEpochRecord(kv.value);
  // ADR-02/03: E+1 must be above every epoch whose tokens are already out there. The log being advanced
  // is the one that was replaced or restored, so its record cannot be trusted for that: a fresh or wiped
  // cluster has none (this minted epoch 1 again, and with the new cluster's low revisions every later
  // token was below earlier ones), and an old snapshot has an older one. The epoch this arbiter served
  // is a second floor. It is lost when the arbiter restarts: ADR-03 allocates epochs from the coord
  // cluster so none is reused, and until that exists an operator must check the epoch after a restart.
  // In coord mode (issue 19) the coord cluster allocates it, above its own record too, in a coord txn
  // written before the entity log: a crash between the two leaves the coord ahead, and every arbiter sealed.
  const clusterId = read.header.clusterId;
  const epoch = await source.allocate({ atLeast: Math.max(old?.epoch ?? 0, servedEpoch) + 1, clusterId, revision: read.header.revision });
  if (epoch >= EPOCH_LIMIT) throw new LockError('invalid-argument', `epoch ${epoch} would reach 2^15 (ADR-02); tokens cannot grow further`);
  const response = await gateway.txn(
    {
      compare: [{ key: EPOCH_KEY, target: 'mod', op: '=', value: kv?.modRevision ?? 0n }],
      success: [
        { type: 'put', key: EPOCH_KEY, value: formatEpochRecord({ epoch, clusterId }) },
        { type: 'delete', key: HOLDER_PREFIX, prefix: true },
        { type: 'delete', key: WAITER_PREFIX, prefix: true },
      ],
      failure: [],
    },
    { whileSealed: true },
  );
  if (!response.succeeded) throw new LockError('stale', 'the epoch record changed during the advance (another advance ran); check status and retry');
  const deleted = response.responses[1];
  const epochKv: KeyValue = {
    key: EPOCH_KEY,
    value: formatEpochRecord({ epoch, clusterId }),
    createRevision: kv?.createRevision ?? response.header.revision,
    modRevision: response.header.revision,
    version: (kv?.version ?? 0n) + 1n,
    lease: kv?.lease ?? (0n as KeyValue['lease']),
  };
  return {
    epoch,
    clusterId,
    revision: response.header.revision,
    holdsDeleted: deleted?.type === 'delete' ? deleted.deleted : 0,
    epochKv,
  };
}
