import { describe, expect, it } from 'vitest';
import { LockError } from '../core/lock-error.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import { rendezvousOrder } from '../core/shards/rendezvous.js';
import { type GateShape, predictGate } from './gate-prediction.js';
import { rendezvousFailover } from './rendezvous-failover.js';

/** A transport whose inspect answers with the replica the route named, or fails as `down` says. */
function transport(route: () => string, down: ReadonlyMap<string, LockError>): { api: ArbiterApi; sentTo: string[] } {
  const sentTo: string[] = [];
  const api = {
    inspect: (): Promise<never> => {
      const to = route(); // read as the send happens, as SimArbiterClient does
      sentTo.push(to);
      const failure = down.get(to);
      return failure === undefined ? Promise.resolve({ servedBy: to } as never) : Promise.reject(failure);
    },
  } as unknown as ArbiterApi;
  return { api, sentTo };
}

describe('rendezvousFailover: the gate client routing in the simulator (issue 32)', () => {
  const names = ['arbiter-1', 'arbiter-2', 'arbiter-3'];

  it("sends a key's call to its rendezvous first, and moves on past a refusal", async () => {
    const order = rendezvousOrder(names, (n) => n, 'payments/gate-0');
    const routing = rendezvousFailover(names, (n) => n);
    const { api, sentTo } = transport(routing.route, new Map([[order[0] as string, new LockError('unavailable', 'refused; nothing was sent')]]));
    await expect(routing.wrap(api).inspect('payments/gate-0')).resolves.toEqual({ servedBy: order[1] });
    expect(sentTo).toEqual(order.slice(0, 2));
  });

  it('never sends again after a call that may have had an effect', async () => {
    const order = rendezvousOrder(names, (n) => n, 'payments/gate-1');
    const routing = rendezvousFailover(names, (n) => n);
    const { api, sentTo } = transport(routing.route, new Map([[order[0] as string, new LockError('indeterminate', 'reset after the send')]]));
    await expect(routing.wrap(api).inspect('payments/gate-1')).rejects.toMatchObject({ code: 'indeterminate' });
    expect(sentTo).toEqual([order[0]]);
  });

  it('lets the gate prediction keep working through an arbiter that stays down: its keys move to the other', async () => {
    const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
    const shape: GateShape = { members: 3, arbiters: 2, clients: 3, keys: 2, durationMs: 20_000, seed: '1' };
    const run = await predictGate(shape, [{ atMs: 5_000, kind: 'crash', target: 'arbiter-1' }], { yieldToHost });
    const refused = run.events.filter((e) => e.time > 6_000 && e.type === 'info' && (e.value as { error?: string } | null)?.error === 'unavailable');
    const granted = run.events.filter((e) => e.time > 6_000 && e.type === 'ok' && e.f === 'acquire');
    // Drawing a replica per call, about half of the calls went to the dead arbiter and were refused.
    expect(refused).toEqual([]);
    expect(granted.length).toBeGreaterThan(10);
  });
});
