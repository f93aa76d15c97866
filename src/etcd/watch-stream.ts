// A LockLog watch on etcd's raw Watch stream, one gRPC stream per watch so that one watch's failure or
// cancel never touches another. etcd sends a "created" response first; then events. A watcher catching up
// on history gets many revisions in one response (mvcc syncWatchers), a synced one gets one response per
// revision (etcd-behaviour.md 4.2): both are delivered here as one batch per revision, as the port says.
import type { Etcd3, IEvent, IWatchCreateRequest, IWatchResponse } from 'etcd3';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type { ResponseHeader, Watch, WatchBatch, WatchEvent, WatchHandlers, WatchRequest } from '../../core/ports/lock-log.js';
import { revision } from '../../core/units.js';
import { int64ToWire, optionalKeyValue, parseInt64, prefixRange, toHeader, toKeyValue, utf8ToBytes } from './convert.js';
import type { CallOptions } from './endpoint-set.js';
import { toLockLogError } from './error-mapping.js';

export function encodeWatchCreate(request: WatchRequest): IWatchCreateRequest {
  const range = request.prefix === true ? prefixRange(request.key) : { key: utf8ToBytes(request.key) };
  return {
    key: range.key,
    ...('rangeEnd' in range ? { range_end: range.rangeEnd } : {}),
    ...(request.startRevision !== undefined ? { start_revision: int64ToWire(request.startRevision, 'watch start revision') } : {}),
    ...(request.prevKv === true ? { prev_kv: true } : {}),
  };
}

function toWatchEvent(event: IEvent): WatchEvent {
  // etcd3's proto names the values Put/Delete; etcd's own proto says PUT/DELETE. Accept both.
  const type = String(event.type).toLowerCase() === 'delete' ? 'delete' : 'put';
  const prevKv = optionalKeyValue(event.prev_kv);
  return prevKv === undefined ? { type, kv: toKeyValue(event.kv) } : { type, kv: toKeyValue(event.kv), prevKv };
}

/** Splits one WatchResponse into one batch per revision, in order. */
export function batchesPerRevision(header: ResponseHeader, events: readonly IEvent[]): WatchBatch[] {
  const batches: WatchBatch[] = [];
  let current: WatchEvent[] = [];
  let currentRevision: bigint | undefined;
  for (const event of events) {
    const converted = toWatchEvent(event);
    if (currentRevision !== undefined && converted.kv.modRevision !== currentRevision) {
      batches.push({ header, events: current });
      current = [];
    }
    currentRevision = converted.kv.modRevision;
    current.push(converted);
  }
  if (current.length > 0) batches.push({ header, events: current });
  return batches;
}

/** The error that ends a watch etcd cancelled: compacted (with where to restart) or another reason. */
export function cancelledWatchError(response: IWatchResponse, description: string): LockLogError {
  const compactRevision = parseInt64(response.compact_revision ?? '0', 'compact_revision');
  if (compactRevision > 0n) {
    return new LockLogError('compacted', `${description}: start revision is below the compaction at ${compactRevision}; watch again from ${compactRevision}`, {
      compactRevision: revision(compactRevision),
    });
  }
  const reason = response.cancel_reason === '' || response.cancel_reason === undefined ? 'no reason given' : response.cancel_reason;
  return new LockLogError('unavailable', `${description}: etcd cancelled the watch (${reason})`);
}

type Phase = 'creating' | 'active' | 'ended';

export async function openWatch(client: Etcd3, request: WatchRequest, handlers: WatchHandlers, options: CallOptions & { readonly description: string }): Promise<Watch> {
  const stream = await client.watchClient.watch();
  const describe = (error: unknown) => toLockLogError(error, { description: options.description, mutates: false });
  let phase: Phase = 'creating';
  const end = () => {
    phase = 'ended';
    stream.cancel();
  };
  return new Promise<Watch>((resolve, reject) => {
    const timer = setTimeout(() => fail(new LockLogError('timeout', `${options.description}: no "created" answer before the deadline`)), Math.max(0, options.deadline.getTime() - Date.now()));
    const fail = (error: LockLogError) => {
      const wasPhase = phase;
      clearTimeout(timer);
      if (wasPhase === 'ended') return;
      end();
      if (wasPhase === 'creating') reject(error);
      else handlers.onError(error);
    };
    const deliver = (batches: readonly WatchBatch[]) => {
      for (const batch of batches) {
        if (phase !== 'active') return; // cancel() from inside a handler stops delivery at once
        try {
          handlers.onEvents(batch);
        } catch (error) {
          fail(new LockLogError('internal', `${options.description}: the onEvents handler threw, so the watch was ended: ${String(error)}`, { cause: error }));
        }
      }
    };
    stream.on('data', (response: IWatchResponse) => {
      if (phase === 'ended') return;
      try {
        if (response.canceled === true) return fail(cancelledWatchError(response, options.description));
        if (phase === 'creating') {
          if (response.created !== true) return fail(new LockLogError('internal', `${options.description}: etcd sent events before "created"`));
          clearTimeout(timer);
          phase = 'active';
          return resolve({ header: toHeader(response.header), cancel: async () => (phase === 'ended' ? undefined : end()) });
        }
        if ((response.events ?? []).length > 0) deliver(batchesPerRevision(toHeader(response.header), response.events));
      } catch (error) {
        fail(describe(error));
      }
    });
    stream.on('error', (error: Error) => fail(describe(error)));
    stream.on('end', () => fail(new LockLogError('unavailable', `${options.description}: the watch stream ended`)));
    stream.write({ create_request: encodeWatchCreate(request) });
  });
}
