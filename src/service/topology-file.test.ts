import { describe, expect, it } from 'vitest';
import { formatProblems, readTopology } from './topology-file.js';

const GOOD = ['apiVersion: lockstep.dev/v1', 'kind: Topology', 'region: eu', 'coord: { name: coord-eu, endpoints: ["127.0.0.1:2379"] }', 'entity:', '  - { name: shard-a, endpoints: ["127.0.0.1:2479", "127.0.0.2:2479"] }', ''].join('\n');

describe('readTopology (lockstep serve --topology)', () => {
  it('reads the region, the coord cluster and the entity shards with their endpoints', () => {
    const read = readTopology(GOOD);
    expect(read).toEqual({ topology: { region: 'eu', coord: { name: 'coord-eu', endpoints: ['http://127.0.0.1:2379'] }, entity: [{ name: 'shard-a', endpoints: ['http://127.0.0.1:2479', 'http://127.0.0.2:2479'] }] } });
  });

  it.each([
    [GOOD.replace('region: eu', 'regoin: eu'), /region is missing.*regoin is not a field of a Topology; did you mean region\?/s],
    [GOOD.replace('name: shard-a', 'name: Shard_A'), /entity\.0\.name is "Shard_A"; it must be a DNS label/],
    [GOOD.replace('endpoints: ["127.0.0.1:2379"]', 'endpoints: []'), /coord\.endpoints .* it must be a list of etcd client endpoints/],
    [GOOD.replace('name: shard-a', 'name: coord-eu'), /names cluster coord-eu twice/],
    [GOOD.replace('"127.0.0.1:2379"', '"nohost"'), /coord\.endpoints/],
    ['kind: [', /\(document\) is not YAML/],
  ])('names the field, the rule and the fix: %#', (text, message) => {
    const read = readTopology(text);
    expect('problems' in read).toBe(true);
    const lines = 'problems' in read ? formatProblems('topo.yaml', read.problems).join('\n') : '';
    expect(lines).toMatch(message);
    expect(lines).toMatch(/fix: /);
  });
});
