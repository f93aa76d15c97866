// The operator's procedure `lockstep audit tail` (ADR-21): campaign for the cluster's one tailer, tail while
// leading, and campaign again when leadership is lost. Driven from src/ on real etcd and from the simulator
// (sim/world/audit-node.ts), with the same code.
import { type CancelSignal, CancelSource, CancelledError, onCancel } from '../cancel.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import { jitteredMs } from '../ports/random.js';
import { type Leadership, campaign } from './election.js';
import { type TailerOptions, type TailerStop, runTailer } from './tailer.js';

const CAMPAIGN_RETRY_MS = 1_000;

export interface ElectedTailerOptions extends Omit<TailerOptions, 'signal' | 'mayWrite'> {
  /** Stops everything: the campaign, or the tailing and then the leadership (resigned, so a standby takes over at once). */
  readonly signal: CancelSignal;
  readonly candidate: string;
  readonly electionTtlSeconds?: number;
  readonly onElected?: (leadership: Leadership) => void;
  readonly onWaiting?: (leader: string) => void;
  readonly onLeadershipLost?: () => void;
  /** A campaign failed (the log did not answer); another starts in about a second. */
  readonly onCampaignError?: (error: unknown) => void;
}

export async function runElectedTailer(options: ElectedTailerOptions): Promise<TailerStop> {
  const { signal, clock, random } = options;
  let last: TailerStop = { reason: 'stopped', clusterId: undefined, revision: undefined };
  while (!signal.aborted) {
    let leadership: Leadership;
    try {
      leadership = await campaign({
        log: options.log,
        clock,
        candidate: options.candidate,
        signal,
        ...(options.electionTtlSeconds === undefined ? {} : { ttlSeconds: options.electionTtlSeconds }),
        ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
      });
    } catch (error) {
      if (signal.aborted) break;
      if (!(error instanceof CancelledError) && !isLockLogError(error)) throw error;
      options.onCampaignError?.(error);
      if (!(await sleepUnlessStopped(() => clock.sleep(jitteredMs(random, CAMPAIGN_RETRY_MS, 0.2), signal)))) break;
      continue;
    }
    options.onElected?.(leadership);
    const stop = new CancelSource();
    const detachShutdown = onCancel(signal, () => stop.cancel());
    const detachLost = onCancel(leadership.lost, () => stop.cancel());
    try {
      last = await runTailer({ ...options, signal: stop, mayWrite: () => leadership.holds() });
      if (last.reason === 'went-backwards') return last;
    } finally {
      detachShutdown();
      detachLost();
      const wasLost = leadership.lost.aborted;
      await leadership.resign();
      if (wasLost && !signal.aborted) options.onLeadershipLost?.();
    }
  }
  return last;
}

async function sleepUnlessStopped(sleep: () => Promise<void>): Promise<boolean> {
  try {
    await sleep();
    return true;
  } catch (error) {
    if (error instanceof CancelledError) return false;
    throw error;
  }
}
