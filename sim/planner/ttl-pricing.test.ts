import { describe, expect, it } from 'vitest';
import { TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../../core/classes/model.js';
import { priceTtl, sweepTtls, ttlSweepProblems, TtlRequestError } from './ttl-pricing.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('TTL pricing requests', () => {
  it('a sweep visits both ends and the standard TTLs between', () => {
    expect(sweepTtls(7, 40)).toEqual([7, 10, 15, 20, 30, 40]);
    expect(sweepTtls(15, 15)).toEqual([15]);
  });

  it('names each wrong field; a good request has none', () => {
    expect(ttlSweepProblems({ fromSeconds: 5, toSeconds: 60, runs: 3, seed: 's' })).toEqual([]);
    const fields = ttlSweepProblems({ fromSeconds: TTL_MIN_SECONDS - 1, toSeconds: TTL_MAX_SECONDS + 1, runs: 0, seed: 's', falseFenceMinutes: 0 }).map((p) => p.field);
    expect(fields).toEqual(['runs', 'falseFenceMinutes', 'fromSeconds', 'toSeconds']);
  });

  it('prices a TTL outside ADR-11\'s range analytically only, and refuses a bad request before simulating', async () => {
    const outside = await priceTtl({ ttlSeconds: 2, runs: 1, seed: 's' }, yieldToHost);
    expect([outside.simulatedSessionHours, outside.reacquireMsP50]).toEqual([null, null]);
    expect(outside.livenessBoundMs).toBeGreaterThan(2_000);
    await expect(priceTtl({ ttlSeconds: 10, runs: 51, seed: 's' }, yieldToHost)).rejects.toBeInstanceOf(TtlRequestError);
  });
});
