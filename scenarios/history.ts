// What a run leaves for the checkers (core/checkers RunHistory): the log's grants as they happened,
// the holders' beliefs, and every write the resources saw.
import type { BeliefInterval, RunHistory } from '../core/checkers/index.js';
import type { World } from '../sim/world/world.js';

export function collectHistory(world: World, beliefs: readonly BeliefInterval[]): RunHistory {
  return {
    grants: world.log.grants,
    beliefs,
    writes: world.resources.flatMap((resource) => resource.writes.map((w) => ({ ...w }))),
    resources: world.resources.map((resource) => ({ name: resource.name, fenced: resource.options.fenced })),
  };
}

/** JSON with bigints as decimal strings (tokens, revisions, ids: ADR-02's wire form). */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString(10) : v), indent);
}
