// What a run leaves for the checkers (core/checkers RunHistory): the log's grants as they happened,
// the holders' beliefs, every write the resources saw, and when each hold was fenced and each holder's
// process could not run (the deadline probe), and what the audit tailer stored, when the world ran one.
import type { BeliefInterval, GrantRecord, RunHistory } from '../core/checkers/index.js';
import { auditRunOf } from '../sim/world/audit-record.js';
import type { World } from '../sim/world/world.js';
import type { DeadlineProbe } from './deadline-probe.js';

/** `grants`: the current cluster's unless given (a run across a restore or shards gives every cluster's, World.grants). */
export function collectHistory(world: World, beliefs: readonly BeliefInterval[], probe: DeadlineProbe, grants: readonly GrantRecord[] = world.log.grants): RunHistory {
  const audit = auditRunOf(world);
  return {
    grants,
    beliefs,
    writes: world.resources.flatMap((resource) => resource.writes.map((w) => ({ ...w }))),
    resources: world.resources.map((resource) => ({ name: resource.name, fenced: resource.options.fenced })),
    ...probe.records(grants),
    ...(audit === undefined ? {} : { audit }),
  };
}

// The artifact's JSON text, from core (one replacer for every layer, issue 34); exported here for the
// scenarios' callers that read a history and write it in one import.
export { toJson } from '../core/json-text.js';
