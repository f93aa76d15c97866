import { describe, expect, it } from 'vitest';
import type { CancelSignal } from '../cancel.js';
import { fenceAccepts } from '../fence/index.js';
import type { Clock } from '../ports/clock.js';
import type { FencingToken } from '../units.js';
import { AFTER_WRITE, BEFORE_WRITE, type FirstHolderControl, type PauseTestResource, type WriteAnswer } from './ports.js';
import { type PauseTestStep, runPauseTest } from './procedure.js';

/** A record with a fence column, as the resource holds it. */
interface Record {
  mark: bigint | undefined;
  value: string | undefined;
}

/** A guarded write: statements with a pause point between each two; `pause` is awaited at every point. */
type GuardedWrite = (record: Record, token: bigint, value: string, pause: (point: string) => Promise<void>) => Promise<WriteAnswer>;

// ADR-16's reference fence: the check and the write in one statement.
const referenceFence: GuardedWrite = async (record, token, value) => {
  if (!fenceAccepts(record.mark, token)) return { answer: 'refused', detail: '0 rows updated' };
  Object.assign(record, { mark: token, value });
  return { answer: 'accepted', detail: '1 row updated' };
};

// No fence at all: whatever arrives is written.
const noFence: GuardedWrite = async (record, _token, value) => {
  record.value = value;
  return { answer: 'accepted' };
};

// ADR-17's classic mistake: the check in one statement, the write in another.
const checkThenWrite: GuardedWrite = async (record, token, value, pause) => {
  if (!fenceAccepts(record.mark, token)) return { answer: 'refused' };
  await pause('between');
  Object.assign(record, { mark: token, value });
  return { answer: 'accepted' };
};

/** Never wakes unless cancelled: the fakes answer at once, so no bound may expire. */
const stillClock = (): Clock => {
  let now = 0;
  return {
    now: () => (now += 100),
    sleep: (_ms: number, signal?: CancelSignal) => new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('cancelled')))),
  };
};

/** The kit's ports around one record: a lock that counts tokens up, a first holder that runs `write` in steps, the second holder's write. */
function fakeWorld(write: GuardedWrite) {
  const record: Record = { mark: undefined, value: undefined };
  let nextToken = 100n;
  const grant = (): FencingToken => (nextToken += 1n) as FencingToken;
  let trial: { token: FencingToken; stoppedAt?: () => void; go?: () => void; done?: Promise<{ write: WriteAnswer; passed: string[] }>; frozen: boolean } | undefined;
  const firstHolder: FirstHolderControl = {
    startAt: (point, value) =>
      new Promise((resolve, reject) => {
        const current: NonNullable<typeof trial> = { token: grant(), frozen: false };
        trial = current;
        const passed: string[] = [];
        let stopped = false;
        const pause = async (name: string): Promise<void> => {
          if (stopped || name !== point) return void passed.push(name);
          stopped = true;
          const before = [...passed];
          passed.length = 0;
          await new Promise<void>((go) => {
            current.go = go;
            resolve({ token: current.token, passed: before });
          });
        };
        current.done = (async () => {
          await pause(BEFORE_WRITE);
          const answer = await write(record, current.token, value, pause);
          await pause(AFTER_WRITE);
          if (!stopped) reject(new Error(`the write ended without passing ${point}`));
          return { write: answer, passed };
        })();
      }),
    freeze: async () => void (trial!.frozen = true),
    resume: async () => {
      trial!.frozen = false;
      trial!.go?.();
    },
    finish: async () => (await trial!.done)!,
    stop: async () => trial?.go?.(),
  };
  const resource: PauseTestResource = { write: (token, value) => write(record, token, value, async () => {}), read: async () => ({ value: record.value, detail: `fence ${record.mark}` }) };
  const lock = { acquire: async () => ({ token: grant(), release: async () => true }) };
  return { ports: { clock: stillClock(), lock, firstHolder, resource }, record };
}

async function kit(write: GuardedWrite, points?: readonly string[]) {
  const steps: PauseTestStep[] = [];
  const { ports } = fakeWorld(write);
  const report = await runPauseTest(ports, { key: 'payments/pause-test', className: 'ledger-writes', ttlSeconds: 5, runId: 'run-1', ...(points === undefined ? {} : { points }) }, (step) => steps.push(step));
  return { report, steps };
}

describe('the pause test kit (ADR-17)', () => {
  it('passes the reference fence: the stale write is refused before the write, and the newer write stands after it', async () => {
    const { report } = await kit(referenceFence);
    expect(report.trials.map((t) => [t.point, t.verdict, t.firstWrite?.answer, t.finalState?.value])).toEqual([
      ['before', 'pass', 'refused', 'run-1/trial-1/second'],
      ['after', 'pass', 'accepted', 'run-1/trial-2/second'],
    ]);
    expect(report.passed).toBe(true);
    expect(report.summary).toMatch(/refused the stale write at 1 pause point \(before\)/);
  });

  it('negative control: fails a resource with no fence, at the pause before the write', async () => {
    const { report } = await kit(noFence);
    expect(report.trials.map((t) => [t.point, t.verdict])).toEqual([['before', 'fail'], ['after', 'pass']]);
    expect(report.passed).toBe(false);
    expect(report.summary).toMatch(/trial 1 at pause point "before": fail: the resource took the first holder's stale write after the second holder's/);
  });

  it('negative control: fails a check-then-write fence only where the pause falls between its statements', async () => {
    const { report } = await kit(checkThenWrite);
    // The refused write of the first trial skips its second statement; the accepted one of the trial
    // after the write passes it, so the kit stands there next.
    expect(report.trials.map((t) => [t.point, t.verdict])).toEqual([['before', 'pass'], ['after', 'pass'], ['between', 'fail']]);
    expect(report.passed).toBe(false);
    expect(report.trials[2]?.finalState?.value).toBe('run-1/trial-3/first');
  });

  it('reads the verdict from the record, not from what the stale holder was told', async () => {
    // A fence that refuses but says it accepted: the record still holds the newer value, so it passes.
    const lying: GuardedWrite = async (record, token, value, pause) => ({ ...(await referenceFence(record, token, value, pause)), answer: 'accepted' });
    expect((await kit(lying)).report.passed).toBe(true);
    // One that says it refused but wrote anyway fails.
    const quiet: GuardedWrite = async (record, token, value, pause) => ({ ...(await noFence(record, token, value, pause)), answer: 'refused' });
    expect((await kit(quiet)).report.passed).toBe(false);
  });

  it('does not pass on the point after the write alone: no stale write met the resource', async () => {
    const { report } = await kit(referenceFence, ['after']);
    expect([report.passed, report.trials.length]).toEqual([false, 1]);
    expect(report.summary).toMatch(/no trial froze the first holder before its write ended/);
  });

  it('stops, inconclusive, at a pause point the write never reaches', async () => {
    const { report } = await kit(referenceFence, ['between', 'after']);
    expect(report.trials.map((t) => [t.point, t.verdict])).toEqual([['between', 'inconclusive']]);
    expect(report.trials[0]?.reason).toMatch(/did not reach pause point "between": the write ended without passing between/);
  });

  it('prints each step with the time since the start, trial by trial', async () => {
    const { steps } = await kit(referenceFence);
    expect(steps[0]?.text).toMatch(/^pause test of payments\/pause-test \(class ledger-writes, TTL 5 s\)/);
    expect(steps.filter((s) => s.trial === 1).map((s) => s.text.split(':')[0]?.split(' ').slice(0, 3).join(' '))).toEqual([
      'first holder',
      'first holder holds',
      'second holder is',
      "second holder's write",
      'first holder resumed',
      "first holder's write",
      'PASS at pause',
    ]);
    expect(steps.every((s, i) => i === 0 || s.atMs > (steps[i - 1] as PauseTestStep).atMs)).toBe(true);
  });
});
