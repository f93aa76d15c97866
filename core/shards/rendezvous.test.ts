import { describe, expect, it } from 'vitest';
import { rendezvousOrder, rendezvousPick, rendezvousScore } from './rendezvous.js';

describe('rendezvousOrder: the order a unit tries the shards (ADR-14/18)', () => {
  const shards = ['127.0.0.1:7001', '127.0.0.1:7002', '127.0.0.1:7003', '127.0.0.1:7004'];

  it("starts with rendezvousPick's shard and goes down by score, whatever order the shards came in", () => {
    for (const unit of ['payments/gate-0', 'payments/gate-1', '42']) {
      const order = rendezvousOrder(shards, (s) => s, unit);
      expect(order[0]).toBe(rendezvousPick(shards, unit));
      expect(order.map((s) => rendezvousScore(s, unit))).toEqual(shards.map((s) => rendezvousScore(s, unit)).sort((a, b) => b - a));
      expect(rendezvousOrder([...shards].reverse(), (s) => s, unit)).toEqual(order);
    }
  });
});
