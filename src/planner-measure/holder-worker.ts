// One holder of `lockstep ttl --measure` (issue 32), in a process of its own so that SIGSTOP freezes all
// of it, its keepalives and its deadline timer with it, as a garbage-collection pause would: the client
// library (core/client LockClient) against the measurement's `lockstep serve` arbiter through its proxy.
// It acquires its key and keeps it; when the library fences the hold it says so, and acquires again.
import { LockClient } from '../../core/client/lock-client.js';
import { createRealClock, sleepMs } from '../clock/index.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import type { FromHolder, HolderConfig, ToHolder } from './holder-protocol.js';

const REACQUIRE_WAIT_MS = 60_000;
const RETRY_MS = 200;

function send(message: FromHolder): Promise<void> {
  return new Promise((resolve) => (process.connected && process.send !== undefined ? process.send(message, undefined, {}, () => resolve()) : resolve()));
}

async function hold(config: HolderConfig): Promise<never> {
  const arbiter = new NetworkArbiter({ addresses: [config.arbiter], dialAddresses: [config.dial], identity: config.identity });
  const client = new LockClient({ arbiter, clock: createRealClock(), identity: config.identity });
  for (;;) {
    let fenced!: () => void;
    const lost = new Promise<void>((resolve) => (fenced = resolve));
    try {
      const handle = await client.acquire({
        key: config.key, className: config.className, ttlSeconds: config.ttlSeconds, waitMs: REACQUIRE_WAIT_MS,
        onFence: (reason) => void send({ t: 'fenced', reason: String(reason) }).then(fenced),
      });
      await send({ t: 'held' });
      await lost;
      await handle.release().catch(() => false); // fenced: the library sends nothing
    } catch {
      await sleepMs(RETRY_MS); // the old hold may still be in the log until its lease ends: wait in line again
    }
  }
}

process.on('message', (message: ToHolder) => {
  if (message.t !== 'start') return;
  hold(message.config).catch(async (error: unknown) => {
    await send({ t: 'failed', message: error instanceof Error ? error.message.split('\n')[0]! : String(error) });
    process.exit(1);
  });
});
