// `lockstep audit tail` wired to the real world: the etcd LockLog, the DuckDB store, the real clocks, and
// core's elected tailer (core/audit/elected-tailer.ts). Its lines say where the tailer is and how far
// behind; they never carry a token (ADR-22): tokens stay in the store, the investigator's tool.
import { hostname } from 'node:os';
import { CancelSource } from '../../core/cancel.js';
import type { TailerProgress, TailerStop } from '../../core/audit/tailer.js';
import { runElectedTailer } from '../../core/audit/elected-tailer.js';
import type { Revision } from '../../core/units.js';
import { createCryptoRandom, createRealClock } from '../clock/index.js';
import { type EtcdClientTls, createEtcdLockLog } from '../etcd/index.js';
import { DuckDbAuditStore } from './duckdb-store.js';

export interface TailServiceOptions {
  readonly endpoints: readonly string[];
  /** TLS to a TLS-only etcd (src/etcd/etcd-tls.ts). */
  readonly etcdTls?: EtcdClientTls;
  readonly db: string;
  readonly fromRevision?: Revision;
  readonly checkpointIntervalMs?: number;
  readonly electionTtlSeconds?: number;
  /** One line per event of the service's life (elected, waiting, progress); `line.event` says which. */
  readonly report: (line: TailReportLine) => void;
  readonly signal: CancelSource;
}

export type TailReportLine =
  | { readonly event: 'waiting'; readonly leader: string }
  | { readonly event: 'elected'; readonly candidate: string }
  | { readonly event: 'leadership-lost' }
  | { readonly event: 'store-error'; readonly message: string }
  /** etcd did not answer; the tailer tries again (reported at most once per RETRY_REPORT_MS). */
  | { readonly event: 'retrying'; readonly message: string }
  | ({ readonly event: 'progress' } & TailerProgress);

/** A tailer that cannot reach etcd says so, but not at every retry. */
const RETRY_REPORT_MS = 10_000;

export async function runTailService(options: TailServiceOptions): Promise<TailerStop> {
  const log = createEtcdLockLog({ endpoints: [...options.endpoints], ...(options.etcdTls === undefined ? {} : { tls: options.etcdTls }) });
  const candidate = `${hostname()}/${process.pid}`;
  let reportedRetryAtMs = Number.NEGATIVE_INFINITY;
  const retrying = (error: unknown): void => {
    if (Date.now() - reportedRetryAtMs < RETRY_REPORT_MS) return;
    reportedRetryAtMs = Date.now();
    options.report({ event: 'retrying', message: firstLine(error) });
  };
  try {
    return await runElectedTailer({
      log,
      store: new DuckDbAuditStore(options.db),
      clock: createRealClock(),
      wallClock: { nowMs: () => Date.now() },
      random: createCryptoRandom(),
      candidate,
      signal: options.signal,
      ...(options.fromRevision === undefined ? {} : { fromRevision: options.fromRevision }),
      ...(options.checkpointIntervalMs === undefined ? {} : { checkpointIntervalMs: options.checkpointIntervalMs }),
      ...(options.electionTtlSeconds === undefined ? {} : { electionTtlSeconds: options.electionTtlSeconds }),
      onWaiting: (leader) => options.report({ event: 'waiting', leader }),
      onElected: () => options.report({ event: 'elected', candidate }),
      onLeadershipLost: () => options.report({ event: 'leadership-lost' }),
      onProgress: (progress) => options.report({ event: 'progress', ...progress }),
      onStoreError: (error) => options.report({ event: 'store-error', message: firstLine(error) }),
      onLogError: retrying,
      onCampaignError: retrying,
    });
  } finally {
    await log.close();
  }
}

function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
