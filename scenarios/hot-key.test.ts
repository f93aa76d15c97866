import { describe, expect, it } from 'vitest';
import { hotKey } from './hot-key.js';
import { type RunArtifact, runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const failedChecks = (artifact: RunArtifact): string[] => artifact.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
const metric = (artifact: RunArtifact, name: string): number => {
  const value = artifact.metrics[name];
  if (value === undefined) throw new Error(`hot-key reports no metric ${name}`);
  return value;
};

describe('hot-key (ADR-14/15)', () => {
  it('memory: 200 waiters are granted in arrival order, with no herd of attempts', async () => {
    const artifact = await runScenario(hotKey, 'memory', '1', { yieldToHost });
    expect(failedChecks(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(metric(artifact, 'waitersGranted')).toBe(200);
    expect(metric(artifact, 'orderInversions')).toBe(0);
    expect(metric(artifact, 'rejoins')).toBe(0);
    // 200 holds of 20 ms plus a release and a grant txn each: tens of grants a second, not a handful.
    expect(metric(artifact, 'grantsPerSecond')).toBeGreaterThan(20);
    // Only the head of the line attempts: the attempts per release do not grow with the 200 waiters.
    expect(metric(artifact, 'releases')).toBe(201);
    expect(metric(artifact, 'attemptsPerRelease')).toBeLessThanOrEqual(2.05);
    expect(metric(artifact, 'waiterKeyWrites')).toBe(0); // memory fairness writes nothing for the line
    expect(metric(artifact, 'logTxnsPerGrant')).toBe(2); // the grant and the release
  });

  // FOUND AND FIXED (hot-key F1): each release through the waiters' own arbiter wakes the line twice: once from
  // Arbiter.release (queue.wake) and once from the watch's delete event of the same revision. Whichever
  // comes second arrives while the attempt the first one started is in flight, stays pending, and is
  // served at once by the next head, whose grant txn finds the new holder in. Seed 1: 403 grant txns for
  // 201 releases. Fixed in core/arbiter/key-queue.ts: a wake carries the revision of its change and is dropped when
  // an attempt has already seen that revision (204 txns).
  it('memory: one release causes one grant attempt (ADR-14 "One release produces one grant attempt")', async () => {
    const artifact = await runScenario(hotKey, 'memory', '1', { yieldToHost });
    expect(metric(artifact, 'attemptsPerRelease')).toBeLessThanOrEqual(1.05);
  });

  it('memory-arbiter-restart: the waiters lose their place, re-join in reconnect order, and all get through', async () => {
    const artifact = await runScenario(hotKey, 'memory-arbiter-restart', '1', { yieldToHost });
    expect(failedChecks(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(artifact.appliedFaults).toEqual(['2000 ms: crash arbiter-1', '2200 ms: restart arbiter-1']);
    expect(metric(artifact, 'waitersGranted')).toBe(200);
    // Everyone still in line at the crash re-joined (about three quarters of them) ...
    expect(metric(artifact, 'waitersRejoined')).toBeGreaterThan(150);
    // ... and order was lost, only among those who re-joined: the line before the crash was FIFO.
    expect(metric(artifact, 'orderInversions')).toBeGreaterThan(1000);
    expect(metric(artifact, 'rejoinedInversions')).toBe(metric(artifact, 'orderInversions'));
  });

  // FOUND AND FIXED (hot-key F3): when the arbiter dies between committing a waiter's grant txn and answering
  // it, the waiter sees `indeterminate` and re-joins on the same session; the new arbiter's queue
  // already exists, so Arbiter.acquire queues it without an attempt, and the re-entered grant that
  // classifyGrant would give it is never reached: it waits at the back holding the key, and the head
  // finds the key held until deadlines pass. Seed 4: waiter-021's hold (granted 3633 ms) ends only by
  // expiry at 31.7 s; 158 of 200 waiters time out. A check for the caller's own hold before joining an
  // existing line (one range read) fixes it (seed 4: 200 of 200 granted): fixed in core/arbiter/arbiter.ts (ownHold).
  it('memory-arbiter-restart, seed 4: a grant committed as the arbiter died does not stall the line', async () => {
    const artifact = await runScenario(hotKey, 'memory-arbiter-restart', '4', { yieldToHost });
    expect(failedChecks(artifact)).toEqual([]);
    expect(metric(artifact, 'waitersGranted')).toBe(200);
  });

  it('durable: waiter keys are written to the log and the safety checks pass', async () => {
    const artifact = await runScenario(hotKey, 'durable', '1', { yieldToHost });
    expect(failedChecks(artifact)).toEqual([]);
    expect(artifact.asDeclared).toBe(true);
    expect(artifact.parameters['fairness']).toBe('durable');
    // Every waiter put its place in the log (and put it again on re-joining); the line was read from the log.
    expect(metric(artifact, 'waiterKeyWrites')).toBeGreaterThanOrEqual(400);
    expect(metric(artifact, 'lineReads')).toBeGreaterThan(0);
  });

  // FOUND AND FIXED (hot-key F2): with `fairness: durable` only the first waiter of the durable line may grant,
  // but only the head of the arbiter's in-memory line attempts. When the two orders differ the line
  // stalls: the head reads "not first" at every poll until its deadline, while the first waiter waits
  // behind it. They differ whenever two waiters arrive within a round trip of each other when the line
  // forms (the second's join + read beats the first's join + read + grant txn) and after every arbiter
  // restart (waiters re-join in reconnect order). Seed 1: 0 of 200 waiters granted, the key free from
  // 1.2 s on. Fixed: the local line is ordered by the waiter key's create revision (plus F3's fix);
  // seeds 1-4 grant all 200 with 0 inversions.
  it('durable: the same restart keeps arrival order and every waiter is granted (ADR-14)', async () => {
    const artifact = await runScenario(hotKey, 'durable', '1', { yieldToHost });
    expect(metric(artifact, 'waitersGranted')).toBe(200);
    expect(metric(artifact, 'waitersRejoined')).toBeGreaterThan(100);
    expect(metric(artifact, 'orderInversions')).toBe(0);
  });

  // FOUND AND FIXED (hot-key F4, issue 19): while the line is forming, an arrival that finds no line makes
  // its own grant attempt and joins when it returns; one arriving just after finds the line and joins after
  // a read. The line kept join order, so the later arrival went first (seed 1, once the confirmation read
  // before the first write shifted the schedule: waiter-003 granted before waiter-002; this test's comment
  // had noted it at other seeds). Fixed in core/arbiter/key-queue.ts: an in-memory line is ordered by arrival.
  it.each(['1', '2', '3', '4'])('memory, seed %s: the line is in arrival order from its first waiter (F4)', async (seed) => {
    const artifact = await runScenario(hotKey, 'memory', seed, { yieldToHost });
    expect(metric(artifact, 'orderInversions')).toBe(0);
  });

  // FOUND AND FIXED (hot-key F5, issue 19): a waiter whose grant txn committed as the arbiter died was told
  // `indeterminate`; the client library's settler (core/client/settle.ts, L2) released that hold 250 ms
  // later, before the waiter came back from its reconnect backoff, so the waiter, whose turn the grant had
  // spent, re-joined at the back: one waiter granted twice, the second time after every later arrival
  // (seed 1: 177 inversions; seeds 3 and 5 too, and seed 10 on main). Fixed: the settler keeps such a hold
  // for ORPHAN_HOLD_GRACE_MS, in which the caller's own acquire is answered with it.
  it.each(['1', '3', '5', '10'])('durable, seed %s: a waiter whose grant committed as the arbiter died keeps its turn (F5)', async (seed) => {
    const artifact = await runScenario(hotKey, 'durable', seed, { yieldToHost });
    expect(metric(artifact, 'waitersGranted')).toBe(200);
    expect(metric(artifact, 'grantsInLog')).toBe(201); // the first holder's and one per waiter: nobody granted twice
    expect(metric(artifact, 'orderInversions')).toBe(0);
  });

  it('replays to the same trace hash from its seed', async () => {
    const first = await runScenario(hotKey, 'memory-arbiter-restart', '7', { yieldToHost });
    const again = await runScenario(hotKey, 'memory-arbiter-restart', '7', { yieldToHost, faults: first.faults });
    expect(again.traceHash).toBe(first.traceHash);
    expect(again.metrics).toEqual(first.metrics);
  });
});
