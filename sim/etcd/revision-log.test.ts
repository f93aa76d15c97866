import { describe, expect, it } from 'vitest';
import { NO_LEASE, revision } from '../../core/units.js';
import { RevisionLog, type StoredEvent } from './revision-log.js';

const putAt = (key: string, rev: number): StoredEvent => ({
  type: 'put',
  kv: { key, value: 'v', createRevision: revision(BigInt(rev)), modRevision: revision(BigInt(rev)), version: 1n, lease: NO_LEASE },
});
const deleteAt = (key: string, rev: number): StoredEvent => ({
  type: 'delete',
  kv: { key, value: '', createRevision: revision(0n), modRevision: revision(BigInt(rev)), version: 0n, lease: NO_LEASE },
});

describe('RevisionLog (the backend key bucket watchers catch up from)', () => {
  it('keeps, at the compaction revision, only each key last change if it is a put (key_index.go keep)', () => {
    const log = new RevisionLog(2);
    log.append({ revision: 2, events: [putAt('a', 2)] });
    log.append({ revision: 3, events: [putAt('x', 3), deleteAt('x', 3), putAt('y', 3), deleteAt('z', 3)] });
    log.append({ revision: 4, events: [putAt('a', 4)] });
    log.compact(3);
    expect(log.at(2)).toBeUndefined();
    expect(log.at(3)?.events).toEqual([putAt('y', 3)]);
    expect(log.at(4)?.events).toEqual([putAt('a', 4)]);
    expect(log.oldestRevision).toBe(3);
  });

  it('releases the array slots of compacted revisions', () => {
    const log = new RevisionLog(2);
    for (let rev = 2; rev < 5002; rev++) log.append({ revision: rev, events: [putAt('k', rev)] });
    log.compact(5000);
    expect(log.retainedRevisions).toBe(2);
    log.append({ revision: 5002, events: [putAt('k', 5002)] });
    expect(log.at(5002)?.revision).toBe(5002);
    expect(() => log.append({ revision: 9, events: [] })).toThrow(/expected 5003/);
  });
});
