// A member's replicated state as a stable string and hash: what every member must agree on after applying
// the same entries. Leadership-local state (primacy, lease expiries, watchers) is left out on purpose:
// it legitimately differs between members (lease/lessor.go: only the primary tracks expiry).
import type { EtcdState } from './apply.js';
import { hashOf } from './state-hash.js';

/** One line per fact: revisions, the history hash, every live kv in key order, every lease by id. */
export function describeState(state: EtcdState): string {
  const { store, lessor } = state;
  const lines = [`revision ${store.currentRev} compacted ${store.compactRev} history ${store.historyHash()}`];
  for (const kv of store.live()) {
    lines.push(`kv ${JSON.stringify(kv.key)} ${JSON.stringify(kv.value)} create ${kv.createRevision} mod ${kv.modRevision} version ${kv.version} lease ${kv.lease}`);
  }
  for (const lease of lessor.leases()) {
    lines.push(`lease ${lease.id} ttl ${lease.ttlSeconds} remaining ${lease.remainingTtlSeconds} keys ${JSON.stringify(lease.keys)}`);
  }
  return lines.join('\n');
}

/** 16 hex digits over describeState: equal on two members iff their replicated state is equal. */
export const stateDigest = (state: EtcdState): string => hashOf(describeState(state));
