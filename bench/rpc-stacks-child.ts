// A process of the RPC-stack bench (issue 30), started by rpc-stacks-run.ts over IPC: `server DIR` runs
// every stack's servers (rpc-stacks-servers.ts) and says their ports; `client DIR` opens every stack's
// client, checks each answers the canned response, then runs the slices it is sent, each measured with
// its own CPU (process.cpuUsage) and the server process's (/proc/<pid>/stat, cpu-meter.ts), and hands the
// tallies back. Servers and clients are separate processes so each one's CPU per call is its own. Either
// exits when the bench that started it goes away (the IPC channel closes).
import { LoopTally, paced, runSlice } from './closed-loop.js';
import { CpuMeter, CpuTally, processCpuUs } from './cpu-meter.js';
import { STACKS, type StackClient, openClient } from './rpc-stacks-clients.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildMessage, type IdleCpu, type ParentMessage, type SliceResult, readTls, sliceKey } from './rpc-stacks-ipc.js';
import { startStackServers } from './rpc-stacks-servers.js';
import { isCannedAnswer } from './rpc-stacks-wire.js';

const [role, dir] = process.argv.slice(2);
const send = (message: ChildMessage) => process.send?.(message);
process.once('disconnect', () => process.exit(0));

if (role === 'server' && dir !== undefined) {
  const servers = await startStackServers(await readTls(dir));
  send({ kind: 'servers', ports: servers.ports });
} else if (role === 'client' && dir !== undefined) {
  await clientRole(dir);
} else {
  process.stderr.write('usage: rpc-stacks-child.ts server|client DIR (started by bench/rpc-stacks.ts)\n');
  process.exit(2);
}

async function clientRole(tlsDir: string): Promise<void> {
  const tls = await readTls(tlsDir);
  const clients = new Map<string, StackClient>();
  const tallies = new Map<string, { loop: LoopTally; cpu: CpuTally }>();
  const meter = new CpuMeter(() => [], undefined);
  let serverPid = 0;
  let idle: IdleCpu = { clientUs: 0, serverUs: 0, ms: 0 };
  process.on('message', (message: ParentMessage) => {
    void (async () => {
      if (message.kind === 'setup') {
        serverPid = message.serverPid;
        for (const stack of STACKS) {
          for (const secure of [false, true]) {
            const client = openClient(stack.client, message.ports[`${stack.server}/${secure ? 'tls' : 'plain'}`], secure ? tls : undefined);
            clients.set(`${stack.id}/${secure}`, client);
            if (!isCannedAnswer(await client.call())) throw new Error(`${stack.label} (${secure ? 'mTLS' : 'plaintext'}) did not answer the canned response`);
          }
        }
        send({ kind: 'ready' });
      } else if (message.kind === 'slice') {
        const client = clients.get(`${message.stack}/${message.secure}`);
        if (client === undefined) throw new Error(`no client for stack ${message.stack}`);
        const key = sliceKey(message);
        const tally = tallies.get(key) ?? { loop: new LoopTally(message.concurrency, ['call']), cpu: new CpuTally() };
        tallies.set(key, tally);
        const before = meter.sample();
        const serveBefore = processCpuUs(serverPid) ?? 0;
        const completed = await runSlice({
          tally: tally.loop,
          warmupMs: message.warmupMs,
          durationMs: message.durationMs,
          // --period: at most one call per period and worker
          operation: paced(async (_worker, _iteration, record) => {
            const startMs = performance.now();
            await client.call();
            record(0, performance.now() - startMs);
          }, message.periodMs),
        });
        tally.cpu.add(before, meter.sample(), completed, [serveBefore, processCpuUs(serverPid) ?? serveBefore]);
        send({ kind: 'sliced' });
      } else if (message.kind === 'idle') {
        const [before, serveBefore, startMs] = [meter.sample(), processCpuUs(serverPid) ?? 0, performance.now()];
        await sleep(message.durationMs);
        const serverUs = (processCpuUs(serverPid) ?? serveBefore) - serveBefore;
        idle = { clientUs: idle.clientUs + meter.sample().clientUs - before.clientUs, serverUs: idle.serverUs + serverUs, ms: idle.ms + performance.now() - startMs };
        send({ kind: 'sliced' });
      } else if (message.kind === 'results') {
        const results: SliceResult[] = [...tallies].map(([key, t]) => ({ key, loop: t.loop.result(), cpu: t.cpu.perOperation(undefined) }));
        for (const client of clients.values()) client.close();
        send({ kind: 'results', results, idle });
      }
    })().catch((error: unknown) => {
      send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    });
  });
  send({ kind: 'started' });
}
