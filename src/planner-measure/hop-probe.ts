// The measuring rig's own cost per message (issue 32, "the model fixed"): every link of a measured
// topology runs through one of the gate's Node proxies (src/gate/links), which costs each message an
// event-loop turn of the measuring process and, when it sleeps, a wakeup: on a loaded host, a wait for a
// CPU. Measured once before a measurement, as the rig has it: a pinger process pings an echo process
// directly and through a proxy of this process, alternately, a few hundred times; the cost per message
// is the proxied round trip less the direct one, halved (a round trip crosses the proxy twice). The
// quorum model adds it to every link (sim/planner/host-timing.ts rigLinkCost), as a named assumption.
import { type ChildProcess, spawn } from 'node:child_process';
import { roundTo } from '../../core/numbers.js';
import { summarise } from '../../core/planner/percentiles.js';
import type { MessageCost } from '../../sim/planner/host-timing.js';
import { LinkMesh } from '../gate/links/link-mesh.js';
import { reapOnExit } from '../testing/process-reaper.js';

export const HOP_PROBE_PINGS = 300;
const PROBE_TIMEOUT_MS = 60_000;

/** Plain JS for `node -e`: `echo` prints its port and echoes; `ping A B N` pings ports A and B in turn N times and prints the round trips. */
const PROBE_SCRIPT = `
const net = require('node:net');
const [mode, ...args] = process.argv.slice(1);
if (mode === 'echo') {
  const server = net.createServer({ noDelay: true }, (s) => { s.on('data', (d) => s.write(d)); s.on('error', () => s.destroy()); });
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
} else {
  const [portA, portB, count] = args.map(Number);
  const open = (port) => new Promise((resolve, reject) => { const s = net.connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(s)); s.once('error', reject); });
  const ping = (s) => new Promise((resolve) => { const t = process.hrtime.bigint(); s.once('data', () => resolve(Number(process.hrtime.bigint() - t) / 1e6)); s.write('*'); });
  (async () => {
    const a = await open(portA), b = await open(portB);
    const out = { direct: [], proxied: [] };
    for (let i = 0; i < count; i++) { out.direct.push(await ping(a)); out.proxied.push(await ping(b)); }
    console.log(JSON.stringify(out));
    process.exit(0);
  })().catch((e) => { console.error(e.message); process.exit(1); });
}`;

export interface HopProbe extends MessageCost {
  readonly pings: number;
  /** The round trips measured, p50 / p99 ms. */
  readonly direct: MessageCost;
  readonly proxied: MessageCost;
}

/** The rig's cost per proxied message from the two round-trip samples (round trips cross the proxy twice). */
export function hopCost(directMs: readonly number[], proxiedMs: readonly number[]): HopProbe {
  const direct = summarise(directMs);
  const proxied = summarise(proxiedMs);
  const p50Ms = Math.max(0, (proxied.p50Ms - direct.p50Ms) / 2);
  const p99Ms = Math.max(p50Ms, (proxied.p99Ms - direct.p99Ms) / 2);
  const rounded = (p: { p50Ms: number; p99Ms: number }): MessageCost => ({ p50Ms: roundTo(p.p50Ms, 3), p99Ms: roundTo(p.p99Ms, 3) });
  return { ...rounded({ p50Ms, p99Ms }), pings: Math.min(directMs.length, proxiedMs.length), direct: rounded(direct), proxied: rounded(proxied) };
}

/** Pings an echo process directly and through a proxy of this process; both child processes and the proxy are gone when it returns. */
export async function probeRigLinkCost(pings = HOP_PROBE_PINGS): Promise<HopProbe> {
  const mesh = new LinkMesh();
  const children: ChildProcess[] = [];
  const start = (args: string[]): ChildProcess => {
    const child = spawn(process.execPath, ['-e', PROBE_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    reapOnExit(child);
    children.push(child);
    return child;
  };
  try {
    const echoPort = Number(await firstLine(start(['echo'])));
    const proxied = await mesh.addClientLink('probe', 'echo', echoPort);
    const output = JSON.parse(await firstLine(start(['ping', String(echoPort), proxied.split(':')[1]!, String(pings)]))) as { direct: number[]; proxied: number[] };
    return hopCost(output.direct, output.proxied);
  } finally {
    await Promise.all(children.map(stopChild));
    await mesh.close();
  }
}

/** Kills a probe process (the echo server runs until told) and waits until it is gone. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** The first line a child prints, or an error with its stderr when it exits or times out first. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the rig's hop probe printed nothing in ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => void (err = (err + chunk.toString()).slice(-500)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      resolve(out.slice(0, newline));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the rig's hop probe exited ${String(code)} before answering: ${err.trim()}`));
    });
  });
}
