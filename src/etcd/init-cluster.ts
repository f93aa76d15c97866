// `lockstep init`'s work against real etcd (core/arbiter/init-log.ts): the operator's first step on a
// new lock log. Also what the demo, the bench and the tests do to the throwaway clusters they start.
import { type InitLogOptions, type InitLogResult, initLog } from '../../core/arbiter/init-log.js';
import { createEtcdLockLog } from './etcd-lock-log.js';
import type { EtcdClientTls } from './etcd-tls.js';

export async function initEtcdLog(endpoints: readonly string[], options: InitLogOptions = {}, tls?: EtcdClientTls): Promise<InitLogResult> {
  const log = createEtcdLockLog({ endpoints: [...endpoints], ...(tls === undefined ? {} : { tls }) });
  try {
    return await initLog(log, options);
  } finally {
    await log.close();
  }
}
