// Issue 29: a holder is (identity, instance). Replicas of one workload share a SPIFFE ID and queue as
// distinct holders (FIFO, rising tokens); one instance opening a second session on a key it holds is
// still a leak (ADR-13). Authorisation stays by identity alone: the instance is a label, not a credential.
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, FENCED, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import type { Grant } from '../ports/arbiter-api.js';
import { parseHolderValue } from './records.js';

const world = useArbiterWorld();
const WAIT_MS = 20_000;

describe('replicas of one identity on real etcd (issue 29)', () => {
  it('queues three instances of one identity on one key in FIFO order with rising tokens', async () => {
    const arbiter = world.arbiter();
    const key = world.key('replicas');
    const replicas = await Promise.all(['pod-a', 'pod-b', 'pod-c'].map((instance) => world.session(arbiter, ALICE, FENCED.ttlSeconds, instance)));
    const order: string[] = [];
    const acquire = (i: number): Promise<Grant> =>
      arbiter.acquire(authenticated(ALICE), { sessionId: replicas[i]!.sessionId, key, className: FENCED.name, waitMs: WAIT_MS }).then((grant) => {
        order.push(replicas[i]!.instance);
        return grant;
      });
    const first = await acquire(0);
    // The line is in arrival order, taken before the arbiter's first await (ADR-14): no settling sleep needed.
    const second = acquire(1);
    const third = acquire(2);

    // Each holder releases in turn; the next in line is granted, none refused as a leak.
    const grants = [first];
    for (const next of [second, third]) {
      const holding = grants.at(-1)!;
      const holder = replicas[grants.length - 1]!;
      expect(parseHolderValue((await world.holder(key))?.value ?? '')).toMatchObject({ identity: ALICE, instance: holder.instance });
      await arbiter.release(authenticated(ALICE), { sessionId: holder.sessionId, key, token: holding.token });
      grants.push(await next);
    }
    expect(order).toEqual(['pod-a', 'pod-b', 'pod-c']);
    expect(grants.map((g) => g.token)).toEqual([...grants.map((g) => g.token)].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(grants.map((g) => g.token)).size).toBe(3);
  });

  it('still refuses one instance acquiring from a second session a key it holds: a leak (ADR-13)', async () => {
    const arbiter = world.arbiter();
    const key = world.key('instance-leak');
    const first = await world.session(arbiter, ALICE, FENCED.ttlSeconds, 'pod-a');
    const second = await world.session(arbiter, ALICE, FENCED.ttlSeconds, 'pod-a');
    const otherReplica = await world.session(arbiter, ALICE, FENCED.ttlSeconds, 'pod-b');
    await arbiter.acquire(authenticated(ALICE), { sessionId: first.sessionId, key, className: FENCED.name, waitMs: 0 });

    const leak = await lockErrorOf(arbiter.acquire(authenticated(ALICE), { sessionId: second.sessionId, key, className: FENCED.name, waitMs: 0 }));
    expect([leak.code, leak.message.includes('instance pod-a'), leak.message.includes(String(first.sessionId))]).toEqual(['leak', true, true]);
    // The control: another instance of the same identity is an ordinary contender, not a leak.
    expect((await lockErrorOf(arbiter.acquire(authenticated(ALICE), { sessionId: otherReplica.sessionId, key, className: FENCED.name, waitMs: 0 }))).code).toBe('contended');
  });

  it('authorises by identity alone: an instance label opens nothing another identity was not granted', async () => {
    const arbiter = world.arbiter();
    const key = world.key('label-not-credential', 'billing');
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds, 'spiffe://lockstep.test/ns/billing/sa/biller');
    expect((await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 }))).code).toBe('denied');
  });

  it('names the holding instance in inspect, and bounds the label', async () => {
    const arbiter = world.arbiter();
    const key = world.key('inspect-instance');
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds, 'host-1:4242');
    await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect((await arbiter.inspect(authenticated(BOB), key)).holder).toMatchObject({ identity: ALICE, instance: 'host-1:4242', sessionId: alice.sessionId });
    expect((await lockErrorOf(arbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds, instance: 'x'.repeat(129) }))).code).toBe('invalid-argument');
  });
});
