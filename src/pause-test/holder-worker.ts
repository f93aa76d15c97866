// The pause test's first holder (ADR-17), in a process of its own, started by the kit (process-holder.ts)
// in a process group of its own, so that one SIGSTOP freezes all of it: the lock library with its
// keepalives, the in-process arbiter on the etcd endpoints, and the guarded write with any command it
// runs, as a garbage-collection pause would. It acquires the key, asks canStart() (ADR-12), runs the
// write and stops at the kit's pause point, telling the kit and waiting for `go`; a stale holder does
// not ask canStart() again after its pause: that is the mistake the resource's fence must catch.
import { actingAs, unauthenticated } from '../../core/ports/caller.js';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { ClassRegistry } from '../../core/classes/index.js';
import { LockClient } from '../../core/client/lock-client.js';
import { AFTER_WRITE, BEFORE_WRITE } from '../../core/pause-test/index.js';
import { formatToken } from '../../core/token.js';
import { createCryptoRandom, createRealClock, sleepMs } from '../clock/index.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { openGuardedWrite } from './guarded-write.js';
import type { FromHolder, HolderConfig, ToHolder } from './holder-protocol.js';

const CLOSE_GRACE_MS = 2_000;

function send(message: FromHolder): Promise<void> {
  return new Promise((resolve) => (process.send === undefined ? resolve() : process.send(message, undefined, {}, () => resolve())));
}

let go: (() => void) | undefined;

async function hold(config: HolderConfig): Promise<void> {
  const clock = createRealClock();
  const log = createEtcdLockLog({ endpoints: [...config.endpoints] });
  const arbiter = new Arbiter({ log, clock, random: createCryptoRandom(), classes: new ClassRegistry([config.lockClass]), authorizer: new PrefixGrants([namespaceGrant(config.identity, config.lockClass.namespace)]) });
  const client = new LockClient({ arbiter: actingAs(arbiter, unauthenticated(config.identity)), clock, identity: config.identity });
  const write = await openGuardedWrite(config.write);
  try {
    const handle = await client.acquire({ key: config.key, className: config.lockClass.name, ttlSeconds: config.lockClass.ttlSeconds, waitMs: config.waitMs, onFence: () => {} });
    if (!handle.canStart()) throw new Error('the lock library says the new hold may not start work');
    const passed: string[] = [];
    let stood = false;
    const pause = async (point: string): Promise<void> => {
      if (stood || point !== config.point) return void passed.push(point);
      stood = true;
      const wait = new Promise<void>((resume) => (go = resume));
      await send({ type: 'at', point, token: formatToken(handle.token), passed: passed.splice(0) });
      await wait;
    };
    await pause(BEFORE_WRITE);
    const answer = await write.write(handle.token, config.value, pause);
    await pause(AFTER_WRITE);
    if (!stood) throw new Error(`its write ended without passing pause point ${JSON.stringify(config.point)} (it passed ${passed.join(', ')})`);
    await send({ type: 'done', write: answer, passed });
    await Promise.race([handle.release().catch(() => false), sleepMs(CLOSE_GRACE_MS)]);
  } finally {
    await Promise.race([client.close(), sleepMs(CLOSE_GRACE_MS)]).catch(() => undefined);
    arbiter.close();
    await Promise.race([log.close(), write.close(), sleepMs(CLOSE_GRACE_MS)]).catch(() => undefined);
  }
}

process.on('message', (message: ToHolder) => {
  if (message.type === 'go') {
    go?.();
    return;
  }
  hold(message.config).then(
    () => process.exit(0),
    async (error: unknown) => {
      await send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );
});
