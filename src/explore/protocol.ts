// Messages between the explorer's pool and its worker threads (structured-clone plain data).
import type { RunVerdict } from '../../scenarios/explore.js';

export type ToWorker = { readonly type: 'run'; readonly run: number } | { readonly type: 'stop' };

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'verdict'; readonly verdict: RunVerdict; readonly artifactJson?: string }
  /** The run could not be judged at all (a bug in the explorer, not a finding). */
  | { readonly type: 'error'; readonly run: number; readonly message: string };
