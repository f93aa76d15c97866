import { describe, expect, it } from 'vitest';
import { pairOperations } from './operations.js';
import { syntheticLockHistory } from './synthetic-history.js';

describe('syntheticLockHistory', () => {
  it('makes exactly the events asked for, in time order, that pair without problems', () => {
    const { events } = syntheticLockHistory({ keys: 7, eventsPerKey: 33, processesPerKey: 3, seed: 11 });
    expect(events).toHaveLength(7 * 33);
    expect(events.every((e, i) => i === 0 || events[i - 1]!.time <= e.time)).toBe(true);
    expect(pairOperations(events).problems).toEqual([]);
  });

  it('is the same history for the same seed, and another for another seed', () => {
    const options = { keys: 3, eventsPerKey: 50, processesPerKey: 4, seed: 5 };
    expect(syntheticLockHistory(options)).toEqual(syntheticLockHistory(options));
    expect(syntheticLockHistory({ ...options, seed: 6 }).events).not.toEqual(syntheticLockHistory(options).events);
  });

  it('reports each granted hold once, tokens rising per key', () => {
    const { events, holds } = syntheticLockHistory({ keys: 2, eventsPerKey: 60, processesPerKey: 3, seed: 1 });
    const granted = events.filter((e) => e.f === 'acquire' && e.type === 'ok' && (e.value as { reentered?: boolean }).reentered !== true);
    expect(holds.map((h) => [h.key, String(h.token)]).sort()).toEqual(granted.map((e) => [e.key, (e.value as { token: string }).token]).sort());
    for (const key of ['k0', 'k1']) {
      const tokens = holds.filter((h) => h.key === key).map((h) => h.token);
      expect(tokens.every((t, i) => i === 0 || tokens[i - 1]! < t)).toBe(true);
    }
  });
});
