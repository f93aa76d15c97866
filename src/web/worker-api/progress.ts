// What the worker tells the page while a long job runs (the page shows it once a job takes over a
// second): a sentence, and how far along when the job can count its steps.
export interface ProgressReport {
  readonly label: string;
  readonly done?: number;
  readonly total?: number;
}

export type OnProgress = (report: ProgressReport) => void;

/** A progress callback that never throws into the simulation: a page that went away must not fail a run. */
export function safeProgress(onProgress: OnProgress | undefined): OnProgress {
  return (report) => {
    try {
      // A comlink proxy returns a promise; nothing waits on it, and its rejection is not the run's business.
      const answer: unknown = onProgress?.(report);
      if (answer instanceof Promise) answer.catch(() => undefined);
    } catch {
      // The page's handler failed; the run goes on.
    }
  };
}
