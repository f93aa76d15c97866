// The pause test kit on real processes (ADR-17): core's procedure (core/pause-test) wired to the real
// world. The second holder lives here, in the kit's process: a LockClient on an in-process Arbiter over
// the etcd endpoints, writing through the same guarded write as the first holder. The first holder is a
// process of its own (process-holder.ts), frozen with SIGSTOP.
import { actingAs, unauthenticated } from '../../core/ports/caller.js';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { ClassRegistry, type LockClass } from '../../core/classes/index.js';
import { LockClient } from '../../core/client/lock-client.js';
import { type PausePoint, type PauseTestReport, type PauseTestStep, type TrialLimits, runPauseTest } from '../../core/pause-test/index.js';
import { createCryptoRandom, createRealClock, sleepMs } from '../clock/index.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type WriteSpec, openGuardedWrite, prepareRecord } from './guarded-write.js';
import { ProcessFirstHolder } from './process-holder.js';

const CLOSE_GRACE_MS = 2_000;

export interface KitOptions {
  readonly endpoints: readonly string[];
  readonly lockClass: LockClass;
  readonly key: string;
  /** The first holder is `<identity>/first`, the second `<identity>/second`: one identity with two sessions would be a leak (ADR-13). */
  readonly identity: string;
  readonly write: WriteSpec;
  readonly points?: readonly PausePoint[];
  readonly limits?: Partial<TrialLimits>;
  readonly onStep: (step: PauseTestStep) => void;
}

export function holderIdentities(identity: string): { readonly first: string; readonly second: string } {
  return { first: `${identity}/first`, second: `${identity}/second` };
}

export async function runKit(options: KitOptions): Promise<PauseTestReport> {
  const { lockClass } = options;
  const identities = holderIdentities(options.identity);
  await prepareRecord(options.write);
  const resource = await openGuardedWrite(options.write);
  const clock = createRealClock();
  const log = createEtcdLockLog({ endpoints: [...options.endpoints] });
  const arbiter = new Arbiter({ log, clock, random: createCryptoRandom(), classes: new ClassRegistry([lockClass]), authorizer: new PrefixGrants([namespaceGrant(identities.second, lockClass.namespace)]) });
  const lock = new LockClient({ arbiter: actingAs(arbiter, unauthenticated(identities.second)), clock, identity: identities.second });
  const firstHolder = new ProcessFirstHolder({
    endpoints: options.endpoints,
    lockClass,
    identity: identities.first,
    key: options.key,
    write: options.write,
    waitMs: 3 * lockClass.ttlSeconds * 1000, // the last trial's holds may still be ending
  });
  const random = createCryptoRandom();
  const runId = `pause-test-${Math.floor(random.next() * 2 ** 48).toString(36)}`;
  try {
    return await runPauseTest(
      { clock, lock, firstHolder, resource: { write: (token, value) => resource.write(token, value, async () => {}), read: () => resource.read() } },
      { key: options.key, className: lockClass.name, ttlSeconds: lockClass.ttlSeconds, runId, ...(options.points === undefined ? {} : { points: options.points }), ...(options.limits === undefined ? {} : { limits: options.limits }) },
      options.onStep,
    );
  } finally {
    await firstHolder.stop();
    await Promise.race([lock.close(), sleepMs(CLOSE_GRACE_MS)]).catch(() => undefined);
    arbiter.close();
    await Promise.race([log.close(), sleepMs(CLOSE_GRACE_MS)]).catch(() => undefined);
    await resource.close().catch(() => undefined);
  }
}
