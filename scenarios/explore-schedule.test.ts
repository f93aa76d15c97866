import { describe, expect, it } from 'vitest';
import { EPISODE_KINDS, FIRST_FAULT_MS, MAX_DRIFT_PPM, drawEpisodes, faultMix, fastCheckSeed, toFaults } from './explore-schedule.js';
import { FAULT_WINDOW_MS, swarmEpisodes, swarmParameters } from './swarm.js';

const seeds = Array.from({ length: 40 }, (_, i) => String(i + 1));

describe('explorer schedules (swarm testing)', () => {
  it('draws the same mix and schedule from a seed every time, and different ones from different seeds', () => {
    expect(swarmEpisodes('17')).toEqual(swarmEpisodes('17'));
    expect(faultMix('17')).toEqual(faultMix('17'));
    expect(fastCheckSeed('17')).toBe(fastCheckSeed('17'));
    const distinct = new Set(seeds.map((seed) => JSON.stringify(swarmEpisodes(seed))));
    expect(distinct.size).toBeGreaterThan(35);
  });

  it('gives each run its own fault mix: never empty, and every kind is left out by some seeds and used by others', () => {
    const mixes = seeds.map(faultMix);
    for (const mix of mixes) expect(mix.length).toBeGreaterThan(0);
    for (const kind of EPISODE_KINDS) {
      expect(mixes.some((mix) => mix.includes(kind))).toBe(true);
      expect(mixes.some((mix) => !mix.includes(kind))).toBe(true);
    }
  });

  it('draws only episodes of the run\'s mix, inside the fault window, with clock drift within what the margin absorbs', () => {
    for (const seed of seeds) {
      const mix = faultMix(seed);
      const clients = swarmParameters(seed).clients;
      for (const episode of drawEpisodes(seed, { clients, windowMs: FAULT_WINDOW_MS })) {
        expect(mix).toContain(episode.kind);
        expect(episode.atMs).toBeGreaterThanOrEqual(FIRST_FAULT_MS);
        expect(episode.atMs).toBeLessThan(FAULT_WINDOW_MS);
        if (episode.kind === 'clock-drift') expect(Math.abs(episode.ppm)).toBeLessThanOrEqual(MAX_DRIFT_PPM);
        for (const name of JSON.stringify(episode).match(/client-\d+/g) ?? []) expect(Number(name.slice('client-'.length))).toBeLessThanOrEqual(clients);
      }
    }
  });

  it('turns each episode into whole faults: every pause ends, every cut is healed after it starts, every restore is reopened', () => {
    const faults = toFaults(seeds.flatMap(swarmEpisodes));
    const paused = faults.filter((f) => f.kind === 'pause');
    expect(paused.length).toBeGreaterThan(0);
    for (const pause of paused) expect(pause.forMs).toBeGreaterThan(0); // resumes the very process it froze
    expect(faults.some((f) => f.kind === 'partition')).toBe(true);
    expect(faults.some((f) => f.kind === 'restore')).toBe(true);
    const perSeed = seeds.map((seed) => toFaults(swarmEpisodes(seed)));
    for (const schedule of perSeed) {
      for (const cut of schedule) {
        if (cut.kind !== 'partition' && cut.kind !== 'slow-link') continue;
        const heal = schedule.find((f) => f.kind === 'heal' && f.id === cut.id);
        expect(heal?.atMs).toBeGreaterThan(cut.atMs);
      }
      for (const restore of schedule) {
        if (restore.kind !== 'restore') continue;
        expect(restore.snapshotAtMs).toBeLessThan(restore.atMs);
        expect(restore.arbiters).toBe('restart'); // the documented procedure: no grant in flight into the restored log
        expect(schedule.some((f) => f.kind === 'advance-epoch' && f.atMs > restore.atMs)).toBe(true);
      }
    }
  });
});
