import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { describeDisk, describeMachine, probeCluster } from './environment.js';

describe('bench environment', () => {
  it('describes the machine and the disk under a directory', () => {
    const machine = describeMachine();
    expect(machine.cores).toBeGreaterThan(0);
    expect(machine.nodeVersion).toMatch(/^v\d+/);
    const disk = describeDisk(tmpdir());
    expect(disk.dir).toBe(tmpdir());
    if (process.platform === 'linux') expect(disk.fsType).toBeDefined();
  });

  it('says which endpoints did not answer when none does', async () => {
    await expect(probeCluster(['127.0.0.1:9'])).rejects.toThrow(/no etcd endpoint answered a status request \(127\.0\.0\.1:9: .*\); check --endpoints/);
  });
});
