// `lockstep serve --topology FILE` and `lockstep shards move` (issue 19, ADR-07/09): which clusters one
// arbiter serves. A YAML document read field by field with the same rule tables as the LockClass
// documents (core/classes/fields.ts), so a wrong field is named with its rule and its fix:
//
//   apiVersion: lockstep.dev/v1
//   kind: Topology
//   region: eu                      # the region this arbiter serves (ADR-08); other regions' keys are redirected
//   coord:   { name: coord-eu, endpoints: [10.0.0.1:2379, ...] }
//   entity:
//     - { name: shard-a, endpoints: [10.0.1.1:2379, ...] }
//     - { name: shard-b, endpoints: [10.0.2.1:2379, ...] }
//
// The names are those of the shard map on the coord cluster (/sys/shardmap) and of each entity cluster's
// epoch record there (/sys/epochs/<name>).
import * as z from 'zod';
import { API_VERSION } from '../../core/classes/model.js';
import { DNS_LABEL, DNS_LABEL_RULE, type FieldProblem, joinPath, readFields, rule } from '../../core/classes/fields.js';
import { EndpointSyntaxError, parseEtcdEndpoints } from '../etcd/endpoint-address.js';
import { parse } from 'yaml';

export interface TopologyCluster {
  readonly name: string;
  readonly endpoints: readonly string[];
}

export interface Topology {
  readonly region: string;
  readonly coord: TopologyCluster;
  readonly entity: readonly TopologyCluster[];
}

const endpoints = z.array(z.string()).min(1);

const topologyFields = {
  apiVersion: rule(z.literal(API_VERSION), { required: true, expected: API_VERSION, fix: `set apiVersion: ${API_VERSION}` }),
  kind: rule(z.literal('Topology'), { required: true, expected: 'Topology', fix: 'set kind: Topology' }),
  region: rule(z.string().regex(DNS_LABEL), { required: true, expected: `${DNS_LABEL_RULE}: the region this arbiter serves (ADR-08)`, fix: 'set region to the shard map\'s name of this region, e.g. eu' }),
  coord: rule(z.unknown(), { required: true, expected: 'a mapping with name and endpoints', fix: 'add coord: {name: coord-eu, endpoints: [host:port]}' }),
  entity: rule(z.array(z.unknown()).min(1), { required: true, expected: 'a list of at least one shard, each with name and endpoints', fix: 'add entity: [{name: shard-a, endpoints: [host:port]}]' }),
};

const clusterFields = {
  name: rule(z.string().regex(DNS_LABEL), { required: true, expected: `${DNS_LABEL_RULE}, as the shard map names the cluster`, fix: 'name it as in the shard map, e.g. shard-a' }),
  endpoints: rule(endpoints, { required: true, expected: 'a list of etcd client endpoints, host:port', fix: 'list the cluster\'s members, e.g. [10.0.1.1:2379, 10.0.1.2:2379]' }),
};

function readCluster(raw: unknown, path: string, problems: FieldProblem[]): TopologyCluster | undefined {
  const reading = readFields(raw, path, 'a cluster', clusterFields);
  problems.push(...reading.problems);
  const { name, endpoints: list } = reading.values;
  if (name === undefined || list === undefined) return undefined;
  try {
    return { name, endpoints: parseEtcdEndpoints(list.join(',')) };
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    problems.push({ field: joinPath(path, 'endpoints'), message: error.message, fix: 'give each member as host:port' });
    return undefined;
  }
}

/** The topology, or every problem found (field, message, fix). */
export function readTopology(text: string): { readonly topology: Topology } | { readonly problems: readonly FieldProblem[] } {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    return { problems: [{ field: '(document)', message: `is not YAML: ${(error as Error).message}`, fix: 'fix the YAML syntax' }] };
  }
  const reading = readFields(document, '', 'a Topology', topologyFields);
  const problems = [...reading.problems];
  const coord = reading.values.coord === undefined ? undefined : readCluster(reading.values.coord, 'coord', problems);
  const entity = (reading.values.entity ?? []).map((raw, i) => readCluster(raw, `entity.${i}`, problems));
  const names = [coord, ...entity].flatMap((cluster) => (cluster === undefined ? [] : [cluster.name]));
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) problems.push({ field: 'entity', message: `names cluster ${twice} twice`, fix: 'give each cluster its own name' });
  if (problems.length > 0 || coord === undefined || reading.values.region === undefined) return { problems };
  return { topology: { region: reading.values.region, coord, entity: entity.filter((cluster) => cluster !== undefined) } };
}

export function formatProblems(file: string, problems: readonly FieldProblem[]): string[] {
  return problems.map((problem) => `${file}: ${problem.field} ${problem.message}; fix: ${problem.fix}`);
}
