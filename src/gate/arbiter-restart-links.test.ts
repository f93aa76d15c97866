// Issue 32: why a restarting arbiter's proxies stay down until its serve is serving (RealCluster.restart).
// A client's call through a proxy that is up while nothing listens behind it (the old order: proxies up,
// then the seconds-long start) is accepted and reset: sent, then lost, so `indeterminate`, never failed
// over (the gate recorded it as an unknown outcome, ~20 a second). Through a proxy that is down, as a
// restarting host's port, the connect is refused: `unavailable`, nothing sent, and the next arbiter is asked.
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { isLockError } from '../../core/lock-error.js';
import { freePorts } from '../testing/free-port.js';
import { LinkMesh } from './links/link-mesh.js';

const meshes: LinkMesh[] = [];
const arbiters: NetworkArbiter[] = [];
afterEach(async () => {
  for (const arbiter of arbiters.splice(0)) arbiter.close();
  await Promise.all(meshes.splice(0).map((mesh) => mesh.close()));
});

/** The error code of an openSession (a mutating call) to `arbiter-1` whose serve is not listening yet. */
async function codeWhileStarting(proxiesUp: boolean): Promise<string> {
  const [servePort] = await freePorts(1); // nothing listens there: the serve is still starting
  const mesh = new LinkMesh();
  meshes.push(mesh);
  const dial = await mesh.addClientLink('client-1', 'arbiter-1', servePort as number);
  await mesh.targetDown('arbiter-1'); // it was crashed
  if (proxiesUp) await mesh.targetUp('arbiter-1'); // the old order: up before the start
  const arbiter = new NetworkArbiter({ addresses: [`127.0.0.1:${servePort}`], dialAddresses: [dial], identity: 'spiffe://lockstep.gate/ns/payments/sa/client-1' });
  arbiters.push(arbiter);
  const error = await arbiter.openSession({ ttlSeconds: 5 }).then(() => undefined, (e: unknown) => e);
  if (!isLockError(error)) throw new Error(`expected a LockError, got ${String(error)}`);
  return error.code;
}

describe('an arbiter restarting behind the gate\'s proxies (issue 32)', () => {
  it('proxies kept down during the start: the connect is refused, nothing was sent (unavailable: the client asks the next arbiter)', async () => {
    expect(await codeWhileStarting(false)).toBe('unavailable');
  });

  it('negative control, the old order: proxies up during the start make the same call indeterminate (an unknown outcome)', async () => {
    expect(await codeWhileStarting(true)).toBe('indeterminate');
  });
});
