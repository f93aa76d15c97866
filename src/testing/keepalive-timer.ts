// A victim that times its own renewals, in a process of its own (issue 28's flood test): a tenant that
// holds a key through `lockstep serve` and renews its session every RENEW_EVERY_MS for a while, timing
// each keepalive, until its standard input ends. Its own process, so the flood's work in the test process
// (building and sending 32 MiB messages) is not counted as the victim's latency. Run from dist/js:
//   node dist/js/src/testing/keepalive-timer.js PORT CERT KEY CA KEY-TO-HOLD CLASS TTL-S
// Says `holding` on stderr once it holds; prints one JSON line on stdout at the end: { latenciesMs, token }
// (the token for the test's log search only).
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { NetworkArbiter } from '../client/network-arbiter.js';

const RENEW_EVERY_MS = 250;

async function main(args: readonly string[]): Promise<void> {
  const [port, cert, key, ca, lockKey, className, ttl] = args;
  if (className === undefined || lockKey === undefined || ttl === undefined) throw new Error('usage: keepalive-timer PORT CERT KEY CA KEY-TO-HOLD CLASS TTL-S');
  let stopped = false;
  process.stdin.on('data', () => undefined).once('end', () => (stopped = true));
  const arbiter = new NetworkArbiter({ addresses: [`127.0.0.1:${port}`], tls: { cert: await readFile(cert as string), key: await readFile(key as string), ca: await readFile(ca as string) } });
  try {
    const session = await arbiter.openSession({ ttlSeconds: Number(ttl) });
    const grant = await arbiter.acquire({ sessionId: session.sessionId, key: lockKey, className, waitMs: 0 });
    process.stderr.write('holding\n');
    const latenciesMs: number[] = [];
    while (!stopped) {
      const startedMs = performance.now();
      await arbiter.keepAlive({ sessionId: session.sessionId });
      latenciesMs.push(performance.now() - startedMs);
      await sleep(RENEW_EVERY_MS);
    }
    await arbiter.release({ sessionId: session.sessionId, key: lockKey, token: grant.token });
    process.stdout.write(`${JSON.stringify({ latenciesMs, token: grant.token.toString() })}\n`);
  } finally {
    arbiter.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`keepalive-timer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
