// Every scenario the workbench runs, by name (`lockstep list`, `lockstep run --all`).
import { hotKey } from './hot-key.js';
import { pauseTest } from './pause-test.js';
import { watchLoss } from './watch-loss.js';
import { clockDrift } from './clock-drift.js';
import { partition } from './partition.js';
import { quorumLoss } from './quorum-loss.js';
import { stuckLeader } from './stuck-leader.js';
import { swarm } from './swarm.js';
import { restore } from './restore.js';
import { shardMove } from './shard-move.js';
import type { Scenario } from './scenario.js';

export const SCENARIOS: readonly Scenario[] = [pauseTest, hotKey, watchLoss, stuckLeader, partition, quorumLoss, clockDrift, restore, shardMove, swarm];

export function scenarioNamed(name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (scenario === undefined) throw new RangeError(`no scenario ${JSON.stringify(name)}; the scenarios: ${SCENARIOS.map((s) => s.name).join(', ')} (lockstep list)`);
  return scenario;
}
