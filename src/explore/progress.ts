// The explorer's progress line on a terminal (stderr, redrawn in place); silent when stderr is not a TTY,
// so logs and pipes get only the result.
import { formatNumber } from '../../core/numbers.js';

export interface ProgressSink {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const BAR_WIDTH = 28;
/** Redraw at most this often: a terminal does not need more, and a fast run would flood it. */
const REDRAW_EVERY_MS = 100;

export function progressLine(done: number, total: number, failures: number, elapsedMs: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const etaSeconds = rate > 0 ? Math.ceil((total - done) / rate) : undefined;
  const failed = failures === 0 ? 'no failure' : failures === 1 ? '1 FAILURE' : `${failures} FAILURES`;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total} runs, ${failed}, ${formatNumber(rate, 1)} runs/s${etaSeconds === undefined ? '' : `, ~${etaSeconds} s left`}`;
}

export class Progress {
  private lastDrawMs = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly sink: ProgressSink | undefined,
    private readonly total: number,
    private readonly startedMs: number,
    private readonly now: () => number,
  ) {}

  update(done: number, failures: number): void {
    if (this.sink?.isTTY !== true) return;
    const nowMs = this.now();
    if (done < this.total && nowMs - this.lastDrawMs < REDRAW_EVERY_MS) return;
    this.lastDrawMs = nowMs;
    this.sink.write(`\r${progressLine(done, this.total, failures, nowMs - this.startedMs)}\u001b[K`);
    this.drawn = true;
  }

  /** Ends the line, so what is printed next starts on its own. */
  end(): void {
    if (this.drawn) this.sink?.write('\n');
    this.drawn = false;
  }
}
