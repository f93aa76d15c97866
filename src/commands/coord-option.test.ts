import { describe, expect, it } from 'vitest';
import { parseCoordOptions } from './coord-option.js';

describe('--coord-endpoints and --cluster-name (issue 19)', () => {
  it('is single-cluster mode when both are left out', () => {
    expect(parseCoordOptions({})).toBeUndefined();
  });

  it('parses the coord endpoints and the lock log\'s name on the coord cluster', () => {
    expect(parseCoordOptions({ coordEndpoints: '10.0.0.1:2379,10.0.0.2:2379', clusterName: 'orders-etcd' })).toEqual({ endpoints: ['http://10.0.0.1:2379', 'http://10.0.0.2:2379'], clusterName: 'orders-etcd' });
  });

  it('names the input, the rule and the fix for each bad combination', () => {
    expect(parseCoordOptions({ clusterName: 'orders-etcd' })).toEqual({ error: expect.stringMatching(/^--cluster-name .*give --coord-endpoints too/) });
    expect(parseCoordOptions({ coordEndpoints: '10.0.0.1:2379' })).toEqual({ error: expect.stringMatching(/^--coord-endpoints needs --cluster-name/) });
    expect(parseCoordOptions({ coordEndpoints: '10.0.0.1:2379', clusterName: 'Orders/1' })).toEqual({ error: expect.stringMatching(/^--cluster-name: .*lower-case letters, digits or dashes/) });
    expect(parseCoordOptions({ coordEndpoints: 'not an endpoint', clusterName: 'orders-etcd' })).toEqual({ error: expect.stringMatching(/^--coord-endpoints "not an endpoint"/) });
  });
});
