// `lockstep lock --endpoints`: an arbiter in this process over the etcd LockLog (ADR-18, single-team use).
// A module of its own so that lock.ts loads the etcd client (etcd3, grpc-js, protobufjs) only in this mode,
// and the --arbiter mode loads only the lock.v1 client (issue 30: start-up is mostly module loading).
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { PrefixGrants } from '../../core/authz/index.js';
import type { ClassRegistry } from '../../core/classes/index.js';
import type { Clock } from '../../core/ports/clock.js';
import { actingAs, unauthenticated } from '../../core/ports/caller.js';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { CoordEpochSource } from '../../core/arbiter/coord-epochs.js';
import { createCryptoRandom, sleepMs } from '../clock/index.js';
import type { EtcdClientTls } from '../etcd/etcd-tls.js';
import { createEtcdLockLog } from '../etcd/index.js';
import type { CoordTarget } from '../commands/coord-option.js';

export interface LocalArbiterSetup {
  readonly endpoints: readonly string[];
  readonly coord: CoordTarget | undefined;
  readonly classes: ClassRegistry;
  readonly grants: PrefixGrants;
  readonly identity: string;
  readonly tls: EtcdClientTls | undefined;
  readonly clock: Clock;
  /** How long closing waits for a log that stopped answering (the lease then expires by itself). */
  readonly closeGraceMs: number;
}

export interface LocalArbiter {
  readonly api: ArbiterApi;
  close(): Promise<void>;
}

export function connectLocal(setup: LocalArbiterSetup): LocalArbiter {
  const tls = setup.tls === undefined ? {} : { tls: setup.tls };
  const log = createEtcdLockLog({ endpoints: [...setup.endpoints], ...tls });
  // Issue 19: with --coord-endpoints the epochs come from the coord cluster, not from the log they protect.
  const coordLog = setup.coord === undefined ? undefined : createEtcdLockLog({ endpoints: setup.coord.endpoints, ...tls });
  const epochSource = coordLog === undefined || setup.coord === undefined ? {} : { epochSource: new CoordEpochSource(coordLog, setup.coord.clusterName) };
  const arbiter = new Arbiter({ log, clock: setup.clock, random: createCryptoRandom(), classes: setup.classes, authorizer: setup.grants, ...epochSource });
  // ADR-19: --identity is asserted by whoever runs the command, not proven by a transport.
  return {
    api: actingAs(arbiter, unauthenticated(setup.identity)),
    close: async () => {
      arbiter.close();
      await Promise.race([log.close(), sleepMs(setup.closeGraceMs)]);
      if (coordLog !== undefined) await Promise.race([coordLog.close(), sleepMs(setup.closeGraceMs)]);
    },
  };
}
