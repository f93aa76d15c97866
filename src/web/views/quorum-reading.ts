// What the quorum figures say, in a sentence each (ADR-08, docs/planner.md "Figures"): where a
// topology's simulated p99 sits between the analytic bounds, and what pinning the leader would buy.
// The one-in-flight bound is not a promise for a loaded cluster: the simulated clients run a closed loop
// that keeps the disks busy, so a p99 above it and under the loaded bound is the model working, not a
// failure, and the page must say so rather than leave a bare "upper bound" the p99 exceeds.
import type { LeaderPricing, TopologyPricing } from '../workbench-api.js';

export type P99Verdict = 'under-upper' | 'under-loaded' | 'over-loaded';

export interface P99Reading {
  readonly verdict: P99Verdict;
  readonly text: string;
}

export function p99Reading(t: TopologyPricing): P99Reading {
  const p99 = t.simulated.p99Ms;
  if (p99 <= t.upperBoundMs) return { verdict: 'under-upper', text: `p99 under both bounds, even the one-in-flight ${t.upperBoundMs} ms` };
  if (p99 <= t.loadedUpperBoundMs) {
    return {
      verdict: 'under-loaded',
      text: `p99 above the one-in-flight bound (${t.upperBoundMs} ms) and under the loaded bound (${t.loadedUpperBoundMs} ms): ${t.setting.clients} clients keep the disks busy, so acquisitions wait behind fsyncs`,
    };
  }
  return { verdict: 'over-loaded', text: `p99 OVER the loaded bound ${t.loadedUpperBoundMs} ms: the analytic model misses a delay the simulation has; report it with the seed` };
}

type Measured = LeaderPricing & { readonly simulated: NonNullable<LeaderPricing['simulated']> };

/**
 * What pinning the leader to its best member would change, against the unpinned (every placement) p99.
 * Pinning is worth a MoveLeader after every election only when the placements are apart: the best
 * placement's p99 below the worst one's median. Within a region they overlap, and a p99 of a few dozen
 * samples per placement differs by noise alone.
 */
export function pinningNote(t: TopologyPricing): string {
  const measured = t.byLeader.filter((l): l is Measured => l.simulated !== null).sort((a, b) => a.simulated.p99Ms - b.simulated.p99Ms);
  const best = measured[0];
  const worst = measured[measured.length - 1];
  if (best === undefined || worst === undefined || measured.length < 2) return `${t.name}: only ${measured.length} leader placement measured; run one run per member to compare placements.`;
  const place = (l: Measured): string => `${l.leader} (${l.region})`;
  if (best.simulated.p99Ms >= worst.simulated.p50Ms) {
    return `${t.name}: the placements overlap (the best p99, ${best.simulated.p99Ms} ms under ${place(best)}, is above the worst placement's median, ${worst.simulated.p50Ms} ms under ${place(worst)}): pinning the leader buys little.`;
  }
  return `${t.name}: pinning the leader to ${place(best)} would give p99 ${best.simulated.p99Ms} ms instead of ${t.simulated.p99Ms} ms unpinned (worst placement ${place(worst)}: ${worst.simulated.p99Ms} ms); etcd has no leader affinity, so that takes a MoveLeader after every election.`;
}

/** The topology's setting in words, from its data: where the callers sit and which member they talk to. */
export function settingLine(t: TopologyPricing): string {
  const s = t.setting;
  const at = (hall: string): string => `hall ${hall} (${s.regionOfHall[hall] ?? '?'})`;
  const arbiter = s.arbiterHall === s.clientsHall ? 'and the arbiter ' : '';
  const arbiterElsewhere = s.arbiterHall === s.clientsHall ? '' : `, the arbiter in ${at(s.arbiterHall)}`;
  const measuredThrough = [...new Set(t.byLeader.flatMap((l) => l.endpoints))];
  return `${t.name}: ${s.clients} clients ${arbiter}in ${at(s.clientsHall)}${arbiterElsewhere}; the arbiter's etcd client on ${s.homeEndpoint}; endpoints measured through: ${measuredThrough.join(', ') || 'none'}.`;
}
