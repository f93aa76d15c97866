// One lane of a member's CPU: a FIFO server on the member's own clock; work waits behind earlier work
// and then takes its cost. A member has two (member-runtime.ts): one for request handling and one for its
// apply loop, which etcd runs on a goroutine of its own. It is the timing model's hook for request and
// apply costs (EtcdTiming); with cost 0 and nothing queued, work runs at once, adding no event. A pause
// holds queued work (process timers).
import type { SimProcess } from '../process/process.js';

export class Cpu {
  private busyUntilLocalMs = 0;

  constructor(private readonly process: SimProcess) {}

  /** Runs `work` after `costMs` of CPU time, behind everything queued before it. */
  run(costMs: number, work: () => void): void {
    const nowMs = this.process.localNow();
    if (costMs <= 0 && this.busyUntilLocalMs <= nowMs) {
      work();
      return;
    }
    this.busyUntilLocalMs = Math.max(nowMs, this.busyUntilLocalMs) + costMs;
    this.process.setTimerAt(this.busyUntilLocalMs, work);
  }

  /** Local time at which the CPU has done everything queued so far. */
  get busyUntilMs(): number {
    return this.busyUntilLocalMs;
  }
}
