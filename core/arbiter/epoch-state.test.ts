// EpochState's rules about which epoch records it accepts (ADR-03), on a scripted log whose answers the
// test releases one by one, so a read can be answered after another change was adopted (concurrency).
import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import type { KeyValue, LockLog, RangeResponse } from '../ports/lock-log.js';
import { clusterId, leaseId, memberId, revision } from '../units.js';
import { EpochState } from './epoch-state.js';
import { LogGateway } from './log-gateway.js';
import { EPOCH_KEY, formatEpochRecord } from './records.js';
import { SealGuard } from './seal-guard.js';

const CLUSTER = clusterId(9n);
const record = (epoch: number, modRevision: bigint): KeyValue => ({ key: EPOCH_KEY, value: formatEpochRecord({ epoch, clusterId: CLUSTER }), createRevision: revision(2n), modRevision: revision(modRevision), version: 1n, lease: leaseId(0n) });

/** A log whose ranges wait until the test answers them, in any order. */
function scriptedLog() {
  const waiting: Array<(response: RangeResponse) => void> = [];
  const unused = (): never => {
    throw new Error('EpochState only ranges here');
  };
  const log: LockLog = {
    range: () => new Promise<RangeResponse>((answer) => waiting.push(answer)),
    txn: unused, leaseGrant: unused, leaseKeepAlive: unused, leaseRevoke: unused, leaseTimeToLive: unused, watch: unused, compact: unused, status: unused, close: unused,
  };
  let headerRevision = 100n;
  const answer = (index: number, kv: KeyValue | undefined): void => {
    headerRevision += 1n;
    waiting[index]?.({ header: { clusterId: CLUSTER, memberId: memberId(1n), revision: revision(headerRevision), raftTerm: 1n }, kvs: kv === undefined ? [] : [kv], count: kv === undefined ? 0 : 1, more: false });
  };
  return { log, answer, sent: () => waiting.length };
}

function setUp() {
  const { log, answer, sent } = scriptedLog();
  const guard = new SealGuard();
  return { epoch: new EpochState(new LogGateway(log, guard), guard), guard, answer, sent };
}

const flush = () => new Promise((done) => setImmediate(done));

describe('EpochState', () => {
  it('adopts a newer record (an advance through another replica) and seals on one below an epoch it has seen', async () => {
    const { epoch, guard, answer } = setUp();
    const first = epoch.reload();
    answer(0, record(3, 10n));
    expect((await first).record.epoch).toBe(3);
    const newer = epoch.reload();
    answer(1, record(4, 20n));
    expect((await newer).record.epoch).toBe(4);
    expect(epoch.floor()).toBe(4);

    // A same-ID restore with a bumped revision brings back epoch 3: adopting it minted tokens below epoch 4's.
    const older = epoch.reload();
    answer(2, record(3, 30n));
    const refused = await older.then(() => undefined, (error: unknown) => error);
    expect(isLockError(refused, 'sealed')).toBe(true);
    expect(guard.sealed).toEqual({ kind: 'epoch-regression', highestSeen: 4, seen: 3 });
  });

  it('its negative control: a read sent before a newer epoch was adopted may answer the older one without sealing', async () => {
    const { epoch, guard, answer, sent } = setUp();
    const first = epoch.reload();
    answer(0, record(3, 10n));
    await first;
    const inFlight = epoch.reload(); // sent while epoch 3 is the highest known
    await flush();
    expect(sent()).toBe(2);
    epoch.adopt(record(4, 20n)); // meanwhile this arbiter advanced the epoch itself
    answer(1, record(3, 10n)); // the read was served before that advance committed
    expect((await inFlight).record.epoch).toBe(3); // the record as that read saw it...
    expect(guard.sealed).toBeUndefined();
    expect([epoch.known?.record.epoch, epoch.floor()]).toEqual([4, 4]); // ...and the cache never goes back
  });

  it('seals on a missing record and never bootstraps one (S3)', async () => {
    const { epoch, guard, answer } = setUp();
    const load = epoch.reload();
    answer(0, undefined);
    expect(isLockError(await load.then(() => undefined, (error: unknown) => error), 'sealed')).toBe(true);
    expect(guard.sealed).toEqual({ kind: 'no-epoch-record' });
  });
});
