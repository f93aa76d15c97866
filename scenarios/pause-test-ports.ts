// The pause test kit's ports in the simulator (core/pause-test): the first holder is a simulated client
// process, the second holder's lock and write are another client's, and the record is read back at the
// simulated resource itself. The freeze is the run's fault schedule: a pause of the first holder's
// process is the simulator's SIGSTOP, and its schedule is plain data (faults.ts) so that a seed and a
// schedule replay the run. So `freeze()` and `resume()` wait for the schedule to pause and resume that
// process, where the real kit (src/pause-test/) sends the signals itself.
import type { BeliefInterval } from '../core/checkers/index.js';
import type { LockHandle } from '../core/client/lock-client.js';
import { AFTER_WRITE, BEFORE_WRITE, type FirstHolderControl, type FirstHolderOutcome, type PausePoint, type PauseTestResource, type WriteAnswer } from '../core/pause-test/index.js';
import type { SimResource } from '../sim/world/resource.js';
import type { ClientNode } from '../sim/world/world.js';

export interface SimHold {
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
}

/** How often the control looks whether the schedule has paused or resumed the first holder, and for how long at most. */
const POLL_MS = 10;
const MAX_POLLS = 6_000; // a minute of simulated time

/** The first holder: `node` acquires, asks canStart() (recorded as a belief), writes to `resource` and stops at the point. */
export function simFirstHolder(node: ClientNode, resource: SimResource, hold: SimHold, beliefs: BeliefInterval[]): FirstHolderControl {
  const kernel = node.process.kernel;
  let go: (() => void) | undefined;
  let done: Promise<FirstHolderOutcome> | undefined;
  const waitFor = async (state: 'paused' | 'running', what: string): Promise<void> => {
    for (let poll = 0; node.process.state !== state; poll += 1) {
      if (poll >= MAX_POLLS) throw new Error(`${node.identity} was not ${what} within ${(MAX_POLLS * POLL_MS) / 1000} s: the fault schedule must pause it past its TTL, then resume it`);
      await kernel.sleep(POLL_MS);
    }
  };
  return {
    startAt: (point, value) =>
      new Promise((reached, failed) => {
        const passed: PausePoint[] = [];
        let stood = false;
        const pause = async (name: PausePoint): Promise<void> => {
          if (stood || name !== point) return void passed.push(name);
          stood = true;
          const before = passed.splice(0);
          await new Promise<void>((resume) => {
            go = resume;
            reached({ token: handle.token, passed: before });
          });
        };
        let handle: LockHandle;
        done = (async (): Promise<FirstHolderOutcome> => {
          handle = await node.client.acquire({ key: hold.key, className: hold.className, ttlSeconds: hold.ttlSeconds, waitMs: 0, onFence: () => {} });
          if (!handle.canStart()) throw new Error(`${node.identity}'s library says it may not start work under its new grant`);
          const nowMs = kernel.now();
          beliefs.push({ holder: node.identity, key: hold.key, token: handle.token, fromMs: nowMs, toMs: nowMs });
          await pause(BEFORE_WRITE);
          const write: WriteAnswer = (await node.resources.write(resource, hold.key, handle.token, value)) ? { answer: 'accepted' } : { answer: 'refused' };
          await pause(AFTER_WRITE);
          await handle.release().catch(() => false);
          if (!stood) throw new Error(`its write ended without passing pause point ${JSON.stringify(point)} (it passed ${passed.join(', ')})`);
          return { write, passed };
        })();
        done.catch(failed);
      }),
    freeze: () => waitFor('paused', 'paused'),
    resume: async () => {
      await waitFor('running', 'resumed');
      go?.();
    },
    finish: () => done ?? Promise.reject(new Error('no first holder was started')),
    stop: async () => go?.(),
  };
}

/** The second holder's write, by `node`, and the record read back at the resource. */
export function simResourcePort(node: ClientNode, resource: SimResource, key: string): PauseTestResource {
  return {
    write: async (token, value) => ((await node.resources.write(resource, key, token, value)) ? { answer: 'accepted' } : { answer: 'refused' }),
    read: async () => {
      const stored = resource.read(key);
      return stored === undefined ? { value: undefined } : { value: stored.value, detail: `last write token ${stored.token} from ${stored.holder}` };
    },
  };
}
