// Run artifacts for the timeline's unit tests, shaped like scenarios/runner.ts writes them (a pause-test
// run: alice holds, is paused past her TTL, bob takes the key; the resource fenced or not).
import type { RunArtifactView, TraceRecordView } from '../artifact/schema.js';

export const ALICE = 'spiffe://sim/alice';
export const BOB = 'spiffe://sim/bob';
export const ALICE_TOKEN = '281474976710660';
export const BOB_TOKEN = '281474976710663';

let nextIndex = 0;
export function record(timeMs: number, process: string, kind: string, fields: Record<string, unknown> = {}): TraceRecordView {
  return { index: nextIndex++, timeMs, process, kind, fields };
}

export function sampleArtifact(overrides: Partial<RunArtifactView> = {}): RunArtifactView {
  nextIndex = 0;
  const records = [
    record(0, '', 'cluster.create', { clusterId: '1', members: ['etcd-1', 'etcd-2', 'etcd-10'] }),
    record(100, 'etcd-1', 'raft.campaign', { kind: 'election', term: 2 }),
    record(110, 'etcd-1', 'raft.become', { lead: 'etcd-1', role: 'leader', term: 2 }),
    record(1000, '', 'fault', { kind: 'pause', description: 'pause alice' }),
    record(1000, 'alice', 'process.pause', { localMs: 1000 }),
    record(2000, 'bob', 'net.send', { id: 7, to: 'arbiter-1', type: 'arbiter.call:keepAlive' }),
    record(2100, 'bob', 'net.send', { id: 8, to: 'arbiter-1', type: 'arbiter.call:acquire' }),
    record(3000, 'etcd-2', 'disk.stall', { disk: 'etcd-2', untilMs: 4500 }),
    record(5000, 'etcd-1', 'etcd.lease.expired', { ids: ['5551812440641001219'] }),
    record(6000, '', 'net.partition', { direction: 'both', from: ['etcd-10'], to: ['etcd-1', 'etcd-2'], id: 0 }),
    record(6000, '', 'net.partition', { direction: 'both', from: ['etcd-10'], to: ['etcd-1', 'etcd-2'], id: 0 }),
    record(6000, '', 'net.partition', { direction: 'both', from: ['etcd-10'], to: ['etcd-1', 'etcd-2'], id: 0 }),
    record(7000, 'etcd-1', 'raft.become', { lead: null, role: 'follower', term: 3 }),
    record(7000, 'etcd-2', 'raft.campaign', { kind: 'election', term: 3 }),
    record(8000, '', 'net.heal', { id: 0 }),
    record(8000, '', 'net.heal', { id: 0 }),
    record(8000, '', 'net.heal', { id: 0 }),
    record(9000, 'etcd-2', 'process.crash', { powerLoss: false }),
    record(9500, 'etcd-2', 'process.restart', { incarnation: 2 }),
    record(16000, 'alice', 'process.resume', { held: 1 }),
    record(19000, 'bob', 'process.pause', {}),
  ];
  return {
    format: 'lockstep.run/1',
    scenario: 'pause-test',
    variant: 'fenced',
    expect: 'pass',
    seed: '1',
    parameters: { ttlSeconds: 5 },
    faults: [{ atMs: 1000, kind: 'pause', target: 'alice' }],
    appliedFaults: ['pause alice'],
    history: {
      grants: [
        { key: 'payments/ledger-7', token: ALICE_TOKEN, holder: ALICE, cluster: 'cluster-1', revision: '4', grantedAtMs: 320, endedAtRevision: '6', endedAtMs: 5591, endReason: 'expiry' },
        { key: 'payments/ledger-7', token: BOB_TOKEN, holder: BOB, cluster: 'cluster-1', revision: '7', grantedAtMs: 5595 },
      ],
      beliefs: [
        { holder: ALICE, key: 'payments/ledger-7', token: ALICE_TOKEN, fromMs: 321, toMs: 321 },
        { holder: ALICE, key: 'payments/ledger-7', token: ALICE_TOKEN, fromMs: 741, toMs: 741 },
        { holder: BOB, key: 'payments/ledger-7', token: BOB_TOKEN, fromMs: 5596, toMs: 5596 },
      ],
      writes: [
        { resource: 'ledger-db', key: 'payments/ledger-7', holder: ALICE, token: ALICE_TOKEN, atMs: 621, endMs: 641, accepted: true },
        { resource: 'ledger-db', key: 'payments/ledger-7', holder: BOB, token: BOB_TOKEN, atMs: 5896, endMs: 5916, accepted: true },
        { resource: 'ledger-db', key: 'payments/ledger-7', holder: ALICE, token: ALICE_TOKEN, atMs: 16307, endMs: 16327, accepted: false },
      ],
      resources: [{ name: 'ledger-db', fenced: true }],
    },
    checks: [
      { name: 'exclusion', ok: true, detail: 'ok: 2 grants', violations: [] },
      { name: 'fence', ok: true, detail: 'ok: 3 writes', violations: [] },
    ],
    ok: true,
    asDeclared: true,
    metrics: {},
    traceHash: '0123456789abcdef',
    simulatedMs: 20000,
    replay: 'lockstep run pause-test --seed 1',
    timeline: {
      records,
      dropped: 0,
      processes: [
        { name: 'bob', role: 'client', identity: BOB },
        { name: 'alice', role: 'client', identity: ALICE },
        { name: 'arbiter-1', role: 'arbiter' },
        { name: 'etcd-1', role: 'member' },
        { name: 'etcd-10', role: 'member' },
        { name: 'etcd-2', role: 'member' },
        { name: 'ledger-db', role: 'resource' },
      ],
    },
    ...overrides,
  };
}

/** The unfenced variant's fence check: alice's stale write overlaps bob's (core/checkers/fence.ts). */
export function unfencedCheck(): RunArtifactView['checks'][number] {
  return {
    name: 'fence',
    ok: false,
    detail: '1 violation: 3 writes to 1 resource checked',
    violations: [
      {
        kind: 'unfenced-overlap',
        key: 'payments/ledger-7',
        message: 'key payments/ledger-7: unfenced resource ledger-db took writes from two holders at once',
        involved: [{ holder: ALICE, token: ALICE_TOKEN }, { holder: BOB, token: BOB_TOKEN }],
        atMs: 5896,
        resource: 'ledger-db',
      },
    ],
  };
}
