// The quorum presets (sim/planner/quorum-pricing.ts QUORUM_PRESETS, examples/topologies/NAME.json),
// bundled into the worker as text by vite's ?raw import: the browser has no file system, and the files
// stay where the CLI and the docs find them. The map's type makes a preset missing here a type error.
import { type Topology, validateTopology } from '../../../core/planner/topology.js';
import { QUORUM_PRESETS, type QuorumPresetName } from '../../../sim/planner/quorum-pricing.js';
import coord52221 from '../../../examples/topologies/coord-5-2-2-1.json?raw';
import regional3 from '../../../examples/topologies/regional-3.json?raw';
import stretched3Region from '../../../examples/topologies/stretched-3-region.json?raw';

const PRESET_TEXT: Readonly<Record<QuorumPresetName, string>> = {
  'regional-3': regional3,
  'coord-5-2-2-1': coord52221,
  'stretched-3-region': stretched3Region,
};

export const TOPOLOGY_PRESETS: readonly string[] = QUORUM_PRESETS;

export function presetTopology(name: string): Topology {
  const text = (QUORUM_PRESETS as readonly string[]).includes(name) ? PRESET_TEXT[name as QuorumPresetName] : undefined;
  if (text === undefined) throw new RangeError(`topology ${JSON.stringify(name)} is not a preset; choose from ${TOPOLOGY_PRESETS.join(', ')}`);
  return validateTopology(JSON.parse(text));
}
