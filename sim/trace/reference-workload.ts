// A small world that exercises every part of the simulator's foundation: drifting clocks, async
// clients that sleep and time out, async servers that fsync before replying, lognormal links across
// two regions with drops and duplicates, a partition, a pause, a crash and restart, a disk stall and a
// clock step. Its trace hash is the determinism check (the same seed gives the same hash in another
// process; see determinism.test.ts), and it doubles as an example of wiring the parts together.
import { CancelSource } from '../../core/cancel.js';
import type { Clock } from '../../core/ports/clock.js';
import type { Deferred } from '../kernel/kernel.js';
import { Kernel } from '../kernel/kernel.js';
import { Disk } from '../disk/disk.js';
import { Network, type Delivery } from '../net/network.js';
import { SimProcess } from '../process/process.js';

export interface ReferenceWorkloadOptions {
  readonly seed: string;
  readonly yieldToHost: () => Promise<void>;
  readonly drain?: 'auto' | 'always';
  readonly keepRecords?: boolean;
}

export interface ReferenceWorkloadResult {
  readonly hash: string;
  readonly records: number;
  readonly events: number;
  readonly repliesReceived: number;
  readonly kernel: Kernel;
}

type Message = { readonly type: 'request'; readonly requestId: number } | { readonly type: 'reply'; readonly requestId: number; readonly durable: number };

const SERVERS = ['server-a', 'server-b', 'server-c'] as const;
const REQUESTS_PER_CLIENT = 40;
const REQUEST_TIMEOUT_MS = 50;

export async function runReferenceWorkload(options: ReferenceWorkloadOptions): Promise<ReferenceWorkloadResult> {
  const kernel = new Kernel({ seed: options.seed, yieldToHost: options.yieldToHost, drain: options.drain ?? 'auto', trace: { keepRecords: options.keepRecords ?? false } });
  const network = new Network<Message>(kernel, {
    defaults: { latency: { kind: 'lognormal', medianMs: 0.5, p99Ms: 2 }, dropProbability: 0.01, duplicateProbability: 0.01 },
  });
  network.setRegionPair('eu', 'us', { latency: { kind: 'uniform', minMs: 30, maxMs: 40 }, ordered: true });
  const servers = SERVERS.map((name, i) => new SimProcess(kernel, { name, region: i === 2 ? 'us' : 'eu', clock: { driftPpm: (i - 1) * 200 } }));
  const clients = ['client-1', 'client-2'].map((name) => new SimProcess(kernel, { name, region: 'eu', clock: { offsetMs: 1000 } }));
  const byName = new Map([...servers, ...clients].map((process) => [process.name, process]));
  const disks = servers.map((server) => startServer(kernel, network, server, byName));
  let repliesReceived = 0;
  const done = clients.map((client) => runClient(kernel, network, client, servers, () => repliesReceived++));
  scheduleFaults(kernel, network, servers, disks);
  await kernel.runUntilQuiescent({ maxEvents: 1_000_000 });
  await Promise.all(done);
  return { hash: kernel.trace.hash(), records: kernel.trace.count, events: kernel.eventsExecuted, repliesReceived, kernel };
}

function startServer(kernel: Kernel, network: Network<Message>, server: SimProcess, byName: ReadonlyMap<string, SimProcess>): Disk<number> {
  const disk = new Disk<number>(server, { fsyncLatency: { kind: 'lognormal', medianMs: 0.8, p99Ms: 5 } });
  const serve = (): void => {
    network.listen(server, async ({ from, payload }: Delivery<Message>) => {
      const client = byName.get(from);
      if (payload.type !== 'request' || client === undefined) return;
      disk.write(payload.requestId);
      await disk.sync();
      kernel.trace.record('server.durable', { requestId: payload.requestId }, server.name);
      network.send(server, client, { type: 'reply', requestId: payload.requestId, durable: disk.durableLength });
    });
  };
  serve();
  server.onRestart(serve);
  return disk;
}

async function runClient(kernel: Kernel, network: Network<Message>, client: SimProcess, servers: readonly SimProcess[], onReply: () => void): Promise<void> {
  const clock = client.clock();
  const random = client.random('workload');
  const waiting = new Map<number, Deferred<number>>();
  network.listen(client, ({ payload }: Delivery<Message>) => {
    if (payload.type === 'reply') waiting.get(payload.requestId)?.resolve(payload.durable);
  });
  for (let requestId = 0; requestId < REQUESTS_PER_CLIENT; requestId++) {
    const reply = kernel.deferred<number>();
    waiting.set(requestId, reply);
    const server = random.pick(servers);
    const sentAtMs = clock.now();
    network.send(client, server, { type: 'request', requestId });
    const outcome = await withTimeout(clock, reply.promise, REQUEST_TIMEOUT_MS);
    waiting.delete(requestId);
    if (outcome !== undefined) onReply();
    const kind = outcome === undefined ? 'client.timeout' : 'client.ok';
    kernel.trace.record(kind, { durable: outcome, elapsedMs: clock.now() - sentAtMs, requestId, server: server.name }, client.name);
    await thinkTime(clock, 5 + random.next() * 10);
  }
}

// Helpers a few awaits deep, as core's code is: their continuations must still run at event time.
async function thinkTime(clock: Clock, ms: number): Promise<void> {
  await clock.sleep(ms);
}

async function withTimeout<T>(clock: Clock, promise: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  const cancel = new CancelSource();
  const timeout = clock.sleep(timeoutMs, cancel.signal).then(
    () => undefined,
    () => undefined,
  );
  const result = await Promise.race([promise, timeout]);
  cancel.cancel();
  return result;
}

function scheduleFaults(kernel: Kernel, network: Network<Message>, servers: readonly SimProcess[], disks: ReadonlyArray<Disk<number>>): void {
  const [a, b, c] = servers as [SimProcess, SimProcess, SimProcess];
  kernel.schedule(60, () => network.partition({ from: ['client-1'], to: [a.name], direction: 'one-way', healAtMs: 160 }));
  kernel.schedule(100, () => b.pause());
  kernel.schedule(180, () => b.resume());
  kernel.schedule(200, () => c.crash());
  kernel.schedule(260, () => c.restart());
  kernel.schedule(300, () => a.stepClock(25, 'monotonic'));
  kernel.schedule(320, () => disks[0]?.stall(400));
}
