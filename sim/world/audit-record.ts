// What the world's audit tailer left, beside what its recorders saw the log do, for the audit-complete
// checker (core/checkers/audit-complete.ts): the store's events, gaps and checkpoints, and every cluster
// the tailer could have tailed (the tailed one and its restored successors), with their compactions.
import type { AuditRun } from '../../core/checkers/index.js';
import type { World } from './world.js';

/**
 * An event may take this long to reach the store by the end of a run: the plan's crash to its restart and
 * election (about 2.5 s), a stalled watch's three checkpoint intervals, a flush, and faults on top.
 */
export const AUDIT_MAX_LAG_MS = 15_000;

export function auditRunOf(world: World): AuditRun | undefined {
  const node = world.audit;
  if (node === undefined) return undefined;
  const tailed = world.clusters.filter((c) => c.name === node.clusterName || c.name.startsWith(`${node.clusterName}/restored-`));
  const current = world.clusters.find((c) => c.cluster === world.clusterNamed(node.clusterName));
  return {
    clusters: tailed.map((c) => ({ name: c.name, clusterId: c.cluster.clusterId, fromRevision: BigInt(c.log.from.revision), compactions: [...c.log.compactions], current: c === current })),
    records: node.store.records,
    gaps: node.store.gaps,
    checkpoints: node.store.allCheckpoints(),
    conflicts: node.store.conflicts.length,
    stops: node.stops.map((s) => ({ reason: s.reason, ...(s.clusterId === undefined ? {} : { clusterId: s.clusterId }), ...(s.revision === undefined ? {} : { revision: s.revision }) })),
    endedAtMs: world.kernel.now(),
    maxLagMs: AUDIT_MAX_LAG_MS,
  };
}
