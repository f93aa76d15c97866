import { describe, expect, it } from 'vitest';
import { LockError, isLockError } from '../../core/lock-error.js';
import type { ArbiterStatus, Grant, Session } from '../../core/ports/arbiter-api.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { Kernel } from '../kernel/kernel.js';
import { Network } from '../net/network.js';
import { SimProcess } from '../process/process.js';
import { leaseId, type FencingToken } from '../../core/units.js';
import { type ArbiterRpcMessage, SimArbiterClient, serveArbiter } from './arbiter-rpc.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

/** An arbiter stand-in: answers what the test tells it to, and counts calls. */
function fakeArbiter(calls: string[]): ArbiterService {
  const session: Session = { sessionId: leaseId(7n), identity: 'a', instance: '', ttlSeconds: 5 };
  const refuse = (): never => {
    throw new LockError('redirect', 'homed elsewhere', { region: 'us' });
  };
  return {
    openSession: async (caller) => (calls.push(`openSession:${caller.identity}:${caller.authenticated ? 'authenticated' : 'unauthenticated'}`), session),
    keepAlive: async () => ({ ttlSeconds: 5 }),
    closeSession: async () => undefined,
    acquire: async () => refuse(),
    release: async () => ({ released: true }),
    validate: async () => ({ valid: false, currentToken: undefined }),
    inspect: async (_caller, key) => ({ key, holder: undefined, enforcement: undefined }),
    describeKey: async () => refuse(),
    requestForceRelease: async () => refuse(),
    approveForceRelease: async () => refuse(),
    requestEpochAdvance: async () => refuse(),
    approveEpochAdvance: async () => refuse(),
    status: async (): Promise<ArbiterStatus> => ({ epoch: 3, clusterId: 9n, sealed: undefined }),
  };
}

function world(latencyMs = 2) {
  const kernel = new Kernel({ seed: 'rpc-test', yieldToHost });
  const network = new Network<ArbiterRpcMessage>(kernel, { name: 'rpc', defaults: { latency: { kind: 'constant', ms: latencyMs }, ordered: true } });
  const server = new SimProcess(kernel, { name: 'arbiter-0' });
  const client = new SimProcess(kernel, { name: 'client-0' });
  const calls: string[] = [];
  const processes = new Map([server, client].map((p) => [p.name, p]));
  serveArbiter(network, server, fakeArbiter(calls), (name) => processes.get(name) as SimProcess, (name) => `spiffe://sim/${name}`);
  const api = new SimArbiterClient({ kernel, network, client, server, timeoutMs: 1000 });
  return { kernel, network, server, client, api, calls };
}

async function settle<T>(kernel: Kernel, promise: Promise<T>, untilMs: number): Promise<{ value?: T; error?: unknown; atMs: number }> {
  const box: { value?: T; error?: unknown; atMs: number } = { atMs: -1 };
  void promise.then(
    (value) => Object.assign(box, { value, atMs: kernel.now() }),
    (error: unknown) => Object.assign(box, { error, atMs: kernel.now() }),
  );
  await kernel.runUntil(untilMs);
  return box;
}

describe('lock.v1 over the simulated network', () => {
  it('carries a call and its answer across the network, one latency each way, naming the sending process as the caller (ADR-19)', async () => {
    const { kernel, api, calls } = world(2);
    const result = await settle(kernel, api.openSession({ ttlSeconds: 5 }), 100);
    expect(result.value?.sessionId).toBe(7n);
    expect(result.atMs).toBe(4);
    expect(calls).toEqual(['openSession:spiffe://sim/client-0:authenticated']);
  });

  it('rebuilds a LockError on the client side with its code, message and region', async () => {
    const { kernel, api } = world();
    const result = await settle(kernel, api.acquire({ sessionId: leaseId(7n), key: 'n/k', className: 'c', waitMs: 0 }), 100);
    expect(isLockError(result.error, 'redirect')).toBe(true);
    expect((result.error as LockError).region).toBe('us');
    expect((result.error as LockError).message).toBe('redirect: homed elsewhere');
  });

  it('is refused at once by a down arbiter\'s host: unavailable, nothing was sent (issue 32)', async () => {
    const { kernel, api, server } = world(2);
    server.crash();
    const both = Promise.allSettled([api.release({ sessionId: leaseId(7n), key: 'n/k', token: 1n as FencingToken }), api.status()]);
    const settled = await settle(kernel, both, 5000);
    const reasons = (settled.value ?? []).map((r) => (r.status === 'rejected' ? (r.reason as unknown) : undefined));
    expect(reasons.map((e) => isLockError(e, 'unavailable'))).toEqual([true, true]);
    expect((reasons[0] as LockError).message).toContain('arbiter-0 refused the connection; nothing was sent');
    expect(settled.atMs).toBe(4); // one latency there, the refusal one back
  });

  it('fails the calls on a connection its arbiter\'s crash resets: indeterminate for a write, unavailable for a read (issue 32)', async () => {
    const { kernel, api, server } = world(2);
    server.pause(); // the calls reach its host and wait there
    kernel.schedule(10, () => server.crash());
    const both = Promise.allSettled([api.release({ sessionId: leaseId(7n), key: 'n/k', token: 1n as FencingToken }), api.status()]);
    const settled = await settle(kernel, both, 5000);
    const [release, status] = (settled.value ?? []).map((r) => (r.status === 'rejected' ? (r.reason as unknown) : undefined));
    expect(isLockError(release, 'indeterminate')).toBe(true);
    expect(isLockError(status, 'unavailable')).toBe(true);
    expect(settled.atMs).toBe(12); // the reset crosses one latency after the crash
  });

  it('reaches a restarted arbiter on the same address, and times out on the client clock behind a partition', async () => {
    const { kernel, api, network, server, client, calls } = world(2);
    const processes = new Map([server, client].map((p) => [p.name, p]));
    server.crash();
    server.restart();
    serveArbiter(network, server, fakeArbiter(calls), (name) => processes.get(name) as SimProcess, (name) => `spiffe://sim/${name}`);
    expect((await settle(kernel, api.status(), 100)).value?.epoch).toBe(3);
    network.partition({ from: [client.name], to: [server.name], direction: 'both' });
    const cut = await settle(kernel, api.release({ sessionId: leaseId(7n), key: 'n/k', token: 1n as FencingToken }), 5000);
    expect(isLockError(cut.error, 'indeterminate')).toBe(true);
    expect(cut.atMs).toBe(1100);
  });

  it('holds a call to a paused arbiter until it resumes, and answers if that is within the deadline', async () => {
    const { kernel, api, server } = world(2);
    server.pause();
    kernel.schedule(500, () => server.resume());
    const result = await settle(kernel, api.keepAlive({ sessionId: leaseId(7n) }), 5000);
    expect(result.value).toEqual({ ttlSeconds: 5 });
    expect(result.atMs).toBe(502);
  });

  it('gives an acquire its wait on top of the call deadline', async () => {
    const { kernel, api, network, server, client } = world();
    network.partition({ from: [client.name], to: [server.name], direction: 'both' });
    const result = await settle(kernel, api.acquire({ sessionId: leaseId(7n), key: 'n/k', className: 'c', waitMs: 3000 }) as Promise<Grant>, 10_000);
    expect(isLockError(result.error, 'indeterminate')).toBe(true);
    expect(result.atMs).toBe(4000);
  });
});
