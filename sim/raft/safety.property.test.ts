// Safety under random faults (fast-check, fixed seeds): partitions, crashes with and without power
// loss, pauses, disk stalls, clock drift, message drops and duplicates; then heal and settle.
// Checked: at most one leader per term; every apply of an index is the same entry on every member and
// in every incarnation, in index order (RaftGroup.violations); every value a client saw applied is
// applied by every member at the same index; all members end with the same applied sequence; proposals
// made after healing commit. A failure prints fast-check's seed and path to replay it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Kernel } from '../kernel/kernel.js';
import { RaftGroup } from './group.js';
import { appliedData, memberNames } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

const FAULT_WINDOW_MS = 20_000;
const MAX_FAULT_MS = 4_000;
const SETTLE_MS = 12_000;
const PROPOSE_EVERY_MS = 40;

type Fault =
  | { readonly kind: 'partition'; readonly atMs: number; readonly side: readonly number[]; readonly forMs: number }
  | { readonly kind: 'isolate-leader'; readonly atMs: number; readonly forMs: number }
  | { readonly kind: 'crash'; readonly atMs: number; readonly member: number; readonly powerLoss: boolean; readonly forMs: number }
  | { readonly kind: 'pause'; readonly atMs: number; readonly member: number; readonly forMs: number }
  | { readonly kind: 'stall'; readonly atMs: number; readonly member: number; readonly forMs: number }
  /** Every member loses power at once (a data-centre outage): only fsynced WAL records survive. */
  | { readonly kind: 'outage'; readonly atMs: number; readonly forMs: number };

interface Scenario {
  readonly seed: string;
  readonly members: number;
  readonly preVote: boolean;
  readonly dropProbability: number;
  readonly duplicateProbability: number;
  readonly ordered: boolean;
  readonly fsyncMedianMs: number;
  readonly driftPpm: readonly number[];
  readonly faults: readonly Fault[];
}

const atMs = fc.integer({ min: 0, max: FAULT_WINDOW_MS });
const forMs = fc.integer({ min: 50, max: MAX_FAULT_MS });
const member = fc.integer({ min: 0, max: 4 });
const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.record({ kind: fc.constant('partition' as const), atMs, side: fc.uniqueArray(member, { minLength: 1, maxLength: 2 }), forMs }),
  fc.record({ kind: fc.constant('isolate-leader' as const), atMs, forMs }),
  fc.record({ kind: fc.constant('crash' as const), atMs, member, powerLoss: fc.boolean(), forMs }),
  fc.record({ kind: fc.constant('pause' as const), atMs, member, forMs }),
  fc.record({ kind: fc.constant('stall' as const), atMs, member, forMs }),
  fc.record({ kind: fc.constant('outage' as const), atMs, forMs }),
);

const scenario = (members: number): fc.Arbitrary<Scenario> =>
  fc.record({
    seed: fc.string({ minLength: 1, maxLength: 8 }),
    members: fc.constant(members),
    preVote: fc.boolean(),
    dropProbability: fc.constantFrom(0, 0.01, 0.05, 0.15),
    duplicateProbability: fc.constantFrom(0, 0.02),
    ordered: fc.boolean(),
    fsyncMedianMs: fc.constantFrom(1, 10),
    driftPpm: fc.array(fc.integer({ min: -500, max: 500 }), { minLength: members, maxLength: members }),
    faults: fc.array(fault, { minLength: 2, maxLength: 16 }),
  });

async function runScenario(s: Scenario): Promise<void> {
  const kernel = new Kernel({ seed: s.seed, yieldToHost });
  const names = memberNames(s.members);
  // The first apply of each value: what a client was told (and the index it was committed at).
  const acknowledged = new Map<string, number>();
  const group = new RaftGroup<string>({
    kernel,
    members: names,
    config: { preVote: s.preVote },
    link: { latency: { kind: 'lognormal', medianMs: 0.5, p99Ms: 5 }, dropProbability: s.dropProbability, duplicateProbability: s.duplicateProbability, ordered: s.ordered },
    fsyncLatency: { kind: 'lognormal', medianMs: s.fsyncMedianMs, p99Ms: s.fsyncMedianMs * 8 },
    clock: (name) => ({ driftPpm: s.driftPpm[names.indexOf(name)] ?? 0 }),
    onApply: (_, entry) => {
      if (entry.type === 'normal' && entry.data !== null && !acknowledged.has(entry.data)) acknowledged.set(entry.data, entry.index);
    },
  });
  const client = kernel.rng.stream('test/client');
  let next = 0;
  const propose = (prefix: string): void => {
    const target = client.pick(names);
    if (group.process(target).state !== 'running' || !group.running().includes(target)) return;
    group.node(target).propose(`${prefix}${next++}`);
  };
  for (let t = 0; t < FAULT_WINDOW_MS + MAX_FAULT_MS; t += PROPOSE_EVERY_MS) kernel.schedule(t, () => propose('v'));
  for (const f of s.faults) scheduleFault(kernel, group, names, f);
  const healAtMs = FAULT_WINDOW_MS + MAX_FAULT_MS;
  kernel.schedule(healAtMs, () => healEverything(group, names));
  await kernel.runUntil(healAtMs + SETTLE_MS);
  // After healing: a fresh proposal at the leader commits everywhere.
  const leader = group.leader();
  expect(leader, 'a leader after healing').toBeDefined();
  const final = group.node(leader!).propose('final');
  expect(final.kind).toBe('appended');
  await kernel.runFor(3_000);
  expect(group.violations).toEqual([]);
  const reference = group.applied(names[0]!);
  for (const name of names) expect(group.applied(name)).toEqual(reference);
  expect(appliedData(reference)).toContain('final');
  for (const [value, index] of acknowledged) {
    const entry = reference[index - 1];
    expect(entry?.type === 'normal' ? entry.data : undefined, `acknowledged ${value} at ${index}`).toBe(value);
  }
}

function scheduleFault(kernel: Kernel, group: RaftGroup<string>, names: readonly string[], f: Fault): void {
  const nameOf = (i: number): string => names[i % names.length]!;
  kernel.schedule(f.atMs, () => {
    switch (f.kind) {
      case 'partition': {
        const side = [...new Set(f.side.map(nameOf))];
        const rest = names.filter((name) => !side.includes(name));
        if (rest.length > 0) group.network.partition({ from: side, to: rest, healAtMs: kernel.now() + f.forMs });
        return;
      }
      case 'isolate-leader': {
        const leader = group.leader();
        if (leader !== undefined) group.network.partition({ from: [leader], to: names.filter((name) => name !== leader), healAtMs: kernel.now() + f.forMs });
        return;
      }
      case 'crash': {
        const process = group.process(nameOf(f.member));
        if (process.state === 'crashed') return;
        process.crash({ powerLoss: f.powerLoss });
        kernel.scheduleAfter(f.forMs, () => {
          if (process.state === 'crashed') process.restart();
        });
        return;
      }
      case 'pause': {
        const process = group.process(nameOf(f.member));
        if (process.state !== 'running') return;
        process.pause();
        kernel.scheduleAfter(f.forMs, () => {
          if (process.state === 'paused') process.resume();
        });
        return;
      }
      case 'stall':
        group.disk(nameOf(f.member)).stall(kernel.now() + f.forMs);
        return;
      case 'outage':
        for (const name of names) {
          const process = group.process(name);
          if (process.state === 'crashed') continue;
          process.crash({ powerLoss: true });
          kernel.scheduleAfter(f.forMs, () => {
            if (process.state === 'crashed') process.restart();
          });
        }
        return;
    }
  });
}

function healEverything(group: RaftGroup<string>, names: readonly string[]): void {
  group.network.healAll();
  for (const name of names) {
    const process = group.process(name);
    if (process.state === 'crashed') process.restart();
    else if (process.state === 'paused') process.resume();
  }
}

describe('Raft safety under random faults', () => {
  it('3 members: one leader per term, committed entries never lost, same applied sequence, liveness after healing', async () => {
    await fc.assert(fc.asyncProperty(scenario(3), runScenario), { seed: 20240601, numRuns: 40 });
  });

  it('5 members: the same', async () => {
    await fc.assert(fc.asyncProperty(scenario(5), runScenario), { seed: 20240602, numRuns: 20 });
  });
});
