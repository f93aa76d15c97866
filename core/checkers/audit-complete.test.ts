import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../audit/events.js';
import { type FencingToken, clusterId, revision } from '../units.js';
import { checkAuditComplete } from './audit-complete.js';
import { checkRun } from './check-run.js';
import type { AuditRun, GrantRecord } from './run-history.js';

const ID = clusterId(42n);
const grants: GrantRecord[] = [
  { key: 'ns/a', token: 105n, holder: 'alice', cluster: 'c1', revision: 5n, grantedAtMs: 1_000, endedAtRevision: 7n, endedAtMs: 2_000, endReason: 'release' },
  { key: 'ns/b', token: 106n, holder: 'bob', cluster: 'c1', revision: 6n, grantedAtMs: 1_500, endedAtRevision: 9n, endedAtMs: 9_000, endReason: 'expiry' },
  { key: 'ns/a', token: 108n, holder: 'carol', cluster: 'c1', revision: 8n, grantedAtMs: 2_500 },
];

function row(kind: AuditRecord['kind'], rev: bigint, key: string, identity: string, token: bigint, grantRevision: bigint): AuditRecord {
  return { kind, revision: revision(rev), key, identity, token: token as FencingToken, grantRevision: revision(grantRevision), clusterId: ID, observedAtMs: 0, timeExact: true };
}

const COMPLETE: AuditRecord[] = [
  row('grant', 5n, 'ns/a', 'alice', 105n, 5n),
  row('grant', 6n, 'ns/b', 'bob', 106n, 6n),
  row('release', 7n, 'ns/a', 'alice', 105n, 5n),
  row('grant', 8n, 'ns/a', 'carol', 108n, 8n),
  row('expiry', 9n, 'ns/b', 'bob', 106n, 6n),
];

function run(records: readonly AuditRecord[], extra: Partial<AuditRun> = {}): AuditRun {
  return {
    clusters: [{ name: 'c1', clusterId: ID, fromRevision: 1n, compactions: [], current: true }],
    records,
    gaps: [],
    checkpoints: [{ clusterId: ID, revision: revision(9n), epoch: 1, updatedAtMs: 0 }],
    conflicts: 0,
    stops: [],
    endedAtMs: 10_000,
    maxLagMs: 5_000,
    ...extra,
  };
}

const kindsOf = (audit: AuditRun): string[] => checkAuditComplete(grants, audit).violations.map((v) => v.kind);

describe('checkAuditComplete', () => {
  it('passes an audit that has every committed lock event once, with its kind and token', () => {
    expect(checkAuditComplete(grants, run(COMPLETE))).toMatchObject({ name: 'audit-complete', ok: true, detail: 'ok: 5 committed lock events of 1 cluster looked up in an audit of 5 events' });
  });

  it('finds an event lost in silence, a duplicate, a wrong kind and an event the log never committed', () => {
    expect(kindsOf(run(COMPLETE.filter((r) => r.kind !== 'expiry')))).toEqual(['audit-missing']);
    expect(kindsOf(run([...COMPLETE, COMPLETE[0] as AuditRecord]))).toEqual(['audit-duplicate']);
    expect(kindsOf(run(COMPLETE.map((r) => (r.kind === 'expiry' ? { ...r, kind: 'release' as const } : r))))).toEqual(['audit-wrong-event']);
    expect(kindsOf(run(COMPLETE.map((r) => (r.revision === 8n ? { ...r, token: 999n as FencingToken } : r))))).toEqual(['audit-wrong-event']);
    expect(kindsOf(run([...COMPLETE, row('grant', 4n, 'ns/z', 'mallory', 104n, 4n)]))).toEqual(['audit-extra']);
    expect(kindsOf(run(COMPLETE, { conflicts: 2 }))).toEqual(['audit-conflict']);
  });

  it('excuses a missing event only inside a recorded gap, and a gap only where the log was compacted', () => {
    const gap = { clusterId: ID, fromRevision: revision(7n), toRevision: revision(8n), detectedAtMs: 0 };
    const lossy = COMPLETE.filter((r) => r.revision !== 7n && r.revision !== 8n);
    expect(checkAuditComplete(grants, run(lossy, { gaps: [gap], clusters: [{ name: 'c1', clusterId: ID, fromRevision: 1n, compactions: [8n], current: true }] }))).toMatchObject({ ok: true });
    expect(kindsOf(run(lossy, { gaps: [gap] }))).toEqual(['audit-gap-unfounded']);
    expect(kindsOf(run(lossy))).toEqual(['audit-missing', 'audit-missing']);
  });

  it('does not judge what the tailer had not reached, unless the run ended long after it was committed', () => {
    const behind = run(COMPLETE.filter((r) => r.revision < 9n), { checkpoints: [{ clusterId: ID, revision: revision(8n), epoch: 1, updatedAtMs: 0 }] });
    expect(checkAuditComplete(grants, behind)).toMatchObject({ ok: true, detail: expect.stringContaining('1 event after the last checkpoint not judged') });
    expect(kindsOf({ ...behind, endedAtMs: 20_000 })).toEqual(['audit-behind']);
    // A cluster a restore replaced takes no more writes: what the tailer missed of it is not judged.
    expect(checkAuditComplete(grants, { ...behind, endedAtMs: 20_000, clusters: [{ name: 'c1', clusterId: ID, fromRevision: 1n, compactions: [], current: false }] }).ok).toBe(true);
  });

  it('accepts the end of a hold the recorded history began with (a restored snapshot), and nothing before its start', () => {
    const restored = [{ name: 'c1', clusterId: ID, fromRevision: 4n, compactions: [], current: true }] as const;
    expect(checkAuditComplete(grants, run([...COMPLETE, row('expiry', 6n, 'ns/old', 'dave', 103n, 3n), row('grant', 3n, 'ns/old', 'dave', 103n, 3n)], { clusters: restored })).ok).toBe(true);
    expect(kindsOf(run([...COMPLETE, row('expiry', 6n, 'ns/old', 'dave', 105n, 5n)], { clusters: restored }))).toEqual(['audit-extra']);
  });
});

describe('a restore under the same cluster ID', () => {
  const restoredGrants: GrantRecord[] = [...grants, { key: 'ns/a', token: 108n, holder: 'zed', cluster: 'c1/restored-1', revision: 8n, grantedAtMs: 5_000 }];
  const clusters = [
    { name: 'c1', clusterId: ID, fromRevision: 1n, compactions: [], current: false },
    { name: 'c1/restored-1', clusterId: ID, fromRevision: 7n, compactions: [], current: true },
  ];
  it('is not judged once the tailer refused it (went-backwards), and is when it did not (the histories mix)', () => {
    const refused = checkAuditComplete(restoredGrants, run(COMPLETE, { clusters, stops: [{ reason: 'went-backwards', clusterId: ID, revision: 8n }] }));
    expect(refused).toMatchObject({ ok: true, detail: expect.stringContaining('not judged: c1/restored-1, restored under a cluster ID the audit already had') });
    expect(checkAuditComplete(restoredGrants, run(COMPLETE, { clusters })).violations.map((v) => v.kind)).toContain('audit-wrong-event');
  });
});

describe('checkRun', () => {
  it('runs audit-complete when the run had an audit tailer, and not otherwise', () => {
    expect(checkRun({ grants, audit: run(COMPLETE) }).map((c) => [c.name, c.ok])).toEqual([['exclusion', true], ['token-order', true], ['audit-complete', true]]);
    expect(checkRun({ grants }).map((c) => c.name)).not.toContain('audit-complete');
  });
});
