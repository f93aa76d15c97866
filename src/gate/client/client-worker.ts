// One client process of `lockstep gate` (issue 15): the client library (core/client LockClient) against
// the gate's `lockstep serve` arbiters, in a loop: acquire a random key, then for each unit of work ask
// canStart() (ADR-12), work, and write through the resource; release. Each operation is reported to the
// gate, which stamps it (client-protocol.ts). Like the pause test's holder, it does not ask canStart()
// again between its work and its write: a pause there (SIGSTOP) makes it a stale writer, which is what
// the resource's fence must catch (ADR-16) and what `--resource unfenced` lets through.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LockClient, type LockHandle } from '../../../core/client/lock-client.js';
import { formatToken } from '../../../core/token.js';
import { createRealClock, createSeededRandom, sleepMs } from '../../clock/index.js';
import { FileRegister } from '../../fences/file-register.js';
import { NetworkArbiter } from '../../client/network-arbiter.js';
import type { ClientConfig, FromClient, GateOp, ToClient } from './client-protocol.js';
import { acquireOutcome, releaseOutcome, writeOutcome } from '../../../core/checkers/operation-outcomes.js';
import { ReleasedHandleFences } from '../../../scenarios/gate-fences.js';

const CLOSE_GRACE_MS = 3_000;
const PAUSE_BETWEEN_HOLDS_MS: readonly [number, number] = [20, 200];

function send(message: FromClient): Promise<void> {
  return new Promise((resolve) => (process.connected && process.send !== undefined ? process.send(message, undefined, {}, () => resolve()) : resolve()));
}

let stopping = false;
let nextId = 1;
const acks = new Map<number, () => void>();

/** Asks the gate to stamp the invoke; resolves once it has (the operation is sent only then). */
async function invoke(f: GateOp, key: string, value: unknown): Promise<number> {
  const id = nextId++;
  const acked = new Promise<void>((resolve) => acks.set(id, resolve));
  await send({ t: 'invoke', id, f, key, value });
  await acked;
  return id;
}

const done = (id: number, type: 'ok' | 'fail' | 'info', value: unknown): Promise<void> => send({ t: 'done', id, type, value });

/** The resource behind the key: the reference fence (a FileRegister), or a plain file that takes any write. */
function resourceFor(config: ClientConfig): (key: string, token: bigint, value: string) => Promise<boolean> {
  const registers = new Map<string, FileRegister>();
  const dirOf = (key: string): string => join(config.resourceDir, encodeURIComponent(key));
  if (config.resource === 'unfenced') {
    return async (key, _token, value) => {
      await writeFile(`${dirOf(key)}.txt`, value);
      return true;
    };
  }
  return (key, token, value) => {
    let register = registers.get(key);
    // at-or-above: a holder writes several times with its one token (each unit of work); a lower token is
    // refused either way (core/fence, ADR-16).
    if (register === undefined) registers.set(key, (register = new FileRegister(dirOf(key), 'at-or-above')));
    return register.write(token, value);
  };
}

/**
 * Released handles whose release is not known to have deleted the hold: their fences are reported too, by the
 * rule the simulator's prediction records by (scenarios/gate-fences.ts). Reported when the library fences the
 * session, before its own revoke of the lease is sent (LockClientOptions.onSessionFenced). (Polling the handle
 * instead, every 20 ms, reported a fence 4 ms after the gate's watch had seen that very revoke: a 5 m run,
 * seed 1, failed the deadline check on it.)
 */
const unconfirmed = new ReleasedHandleFences<LockHandle>();

async function run(config: ClientConfig): Promise<void> {
  const clock = createRealClock();
  const random = createSeededRandom(config.seed);
  const between = (range: readonly [number, number]): number => range[0] + Math.floor(random.next() * (range[1] - range[0] + 1));
  const arbiter = new NetworkArbiter({ addresses: config.arbiters, dialAddresses: config.dial, identity: config.identity });
  const client = new LockClient({ arbiter, clock, identity: config.identity, onSessionFenced: () => unconfirmed.sessionFenced() });
  const write = resourceFor(config);
  let writes = 0;
  try {
    while (!stopping) {
      const key = config.keys[Math.floor(random.next() * config.keys.length)] as string;
      const acquireId = await invoke('acquire', key, null);
      let handle: LockHandle;
      try {
        handle = await client.acquire({
          key,
          className: config.className,
          ttlSeconds: config.ttlSeconds,
          waitMs: config.waitMs,
          onFence: (reason) => void send({ t: 'fence', key, token: formatToken(handle.token), reason }),
        });
      } catch (error) {
        const outcome = acquireOutcome(error);
        await done(acquireId, outcome.type, outcome.value);
        await sleepMs(between(PAUSE_BETWEEN_HOLDS_MS));
        continue;
      }
      const token = formatToken(handle.token);
      await done(acquireId, 'ok', { token });
      for (let unit = 0; unit < config.unitsPerHold && !stopping; unit++) {
        if (!handle.canStart()) break; // ADR-12: no new work on a hold that may be gone
        await sleepMs(between(config.workMs)); // the work; a pause here makes a stale writer
        const writeId = await invoke('write', key, { token });
        try {
          const accepted = await write(key, handle.token, `${config.name} ${token} ${++writes}`);
          await done(writeId, accepted ? 'ok' : 'fail', accepted ? null : { refused: 'fence' });
        } catch (error) {
          const outcome = writeOutcome(error);
          await done(writeId, outcome.type, outcome.value);
        }
      }
      if (handle.fenced) {
        // The library gave the hold up (its session is fenced): release sends nothing, so it is no
        // operation of the history; the log's own end of the hold is (an expiry).
        await handle.release().catch(() => false);
        continue;
      }
      const releaseId = await invoke('release', key, { token });
      // Watched from before the release is sent until it is known to have deleted the hold (`unconfirmed`).
      unconfirmed.watch(handle, () => void send({ t: 'fence', key, token, reason: 'released-handle' }));
      try {
        const released = await handle.release();
        if (released) unconfirmed.confirmed(handle);
        // false with the session fenced meanwhile: the library sent nothing (certainly no effect).
        if (!released && handle.fenced) await done(releaseId, 'fail', { error: 'fenced' });
        else await done(releaseId, 'ok', { released });
      } catch (error) {
        const outcome = releaseOutcome(error);
        await done(releaseId, outcome.type, outcome.value);
      }
      await sleepMs(between(PAUSE_BETWEEN_HOLDS_MS));
    }
  } finally {
    await Promise.race([client.close(), sleepMs(CLOSE_GRACE_MS)]).catch(() => undefined);
    arbiter.close();
  }
}

process.on('message', (message: ToClient) => {
  if (message.t === 'ack') {
    acks.get(message.id)?.();
    acks.delete(message.id);
    return;
  }
  if (message.t === 'stop') {
    stopping = true;
    return;
  }
  run(message.config).then(
    async () => {
      await send({ t: 'stopped' });
      process.exit(0);
    },
    async (error: unknown) => {
      await send({ t: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.exit(1);
    },
  );
});
