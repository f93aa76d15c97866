// The page's handle on the simulator worker (issue 7): comlink over a module Worker, one job at a time,
// and Cancel by terminating the worker (a simulation cannot be interrupted mid-event) and starting a
// fresh one, so the next job does not wait behind the cancelled one.
import * as Comlink from 'comlink';
import type { OnProgress, WorkbenchApi } from './workbench-api.js';

export class JobCancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'JobCancelledError';
  }
}

export type Job<T> = (api: Comlink.Remote<WorkbenchApi>, onProgress: OnProgress & Comlink.ProxyMarked) => Promise<T>;

export class WorkbenchClient {
  private worker!: Worker;
  private api!: Comlink.Remote<WorkbenchApi>;
  private abort: ((error: Error) => void) | undefined;

  constructor(private readonly makeWorker: () => Worker) {
    this.start();
  }

  private start(): void {
    this.worker = this.makeWorker();
    this.api = Comlink.wrap<WorkbenchApi>(this.worker);
    // A worker that fails to load or throws outside a call would otherwise leave its caller waiting.
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.abort?.(new Error(`the simulator worker failed: ${event.message || 'it could not be loaded'}; reload the page`));
    });
  }

  get busy(): boolean {
    return this.abort !== undefined;
  }

  /** Runs a job in the worker; rejects with JobCancelledError if cancel() is called meanwhile. */
  run<T>(job: Job<T>, onProgress: OnProgress): Promise<T> {
    if (this.busy) return Promise.reject(new Error('another job is running; wait for it or cancel it'));
    const progress = Comlink.proxy(onProgress);
    return new Promise<T>((resolve, reject) => {
      this.abort = reject;
      job(this.api, progress).then(resolve, reject);
    }).finally(() => {
      this.abort = undefined;
    });
  }

  cancel(): void {
    const abort = this.abort;
    if (abort === undefined) return;
    this.api[Comlink.releaseProxy]();
    this.worker.terminate();
    this.start();
    abort(new JobCancelledError());
  }
}
