// The measuring rig's own cost per message (issue 32, "the model fixed"): every link of a measured
// topology runs through one of the gate's Node proxies (src/gate/links), which costs each message an
// event-loop turn of the measuring process and, when it sleeps, a wakeup: on a loaded host, a wait for a
// CPU. A pinger process pings an echo process directly and through a proxy of this process, alternately;
// the cost per message is the proxied round trip less the direct one, halved (a round trip crosses the
// proxy twice). `quorum --measure` runs it during the measurement (RigProbe: a pair of pings every
// RIG_PROBE_INTERVAL_MS, kept while the client loop runs), so the cost is the one the loaded measuring
// process has, not an idle one's; the quorum model adds it to every link (sim/planner/host-timing.ts
// rigLinkCost), as a named assumption.
import { type ChildProcess, spawn } from 'node:child_process';
import { roundTo } from '../../core/numbers.js';
import { summarise } from '../../core/planner/percentiles.js';
import type { MessageCost } from '../../sim/planner/host-timing.js';
import { LinkMesh } from '../gate/links/link-mesh.js';
import { reapOnExit } from '../testing/process-reaper.js';

/** During a measurement, one pair of pings this often: a few messages through the measuring process per grant or fewer. */
export const RIG_PROBE_INTERVAL_MS = 25;
/** At most this many pairs kept (a measurement runs minutes; a few thousand pairs make the percentiles). */
const MAX_PROBE_PAIRS = 20_000;
const PROBE_TIMEOUT_MS = 60_000;

/**
 * Plain JS for `node -e`: `echo` prints its port and echoes; `ping A B N MS` pings ports A and B in turn,
 * N times (0: until killed), MS ms apart, and prints each pair's round trips, "direct proxied", a line each.
 */
const PROBE_SCRIPT = `
const net = require('node:net');
const [mode, ...args] = process.argv.slice(1);
if (mode === 'echo') {
  const server = net.createServer({ noDelay: true }, (s) => { s.on('data', (d) => s.write(d)); s.on('error', () => s.destroy()); });
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
} else {
  const [portA, portB, count, gapMs] = args.map(Number);
  const open = (port) => new Promise((resolve, reject) => { const s = net.connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(s)); s.once('error', reject); });
  const ping = (s) => new Promise((resolve) => { const t = process.hrtime.bigint(); s.once('data', () => resolve(Number(process.hrtime.bigint() - t) / 1e6)); s.write('*'); });
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  (async () => {
    const a = await open(portA), b = await open(portB);
    for (let i = 0; count === 0 || i < count; i++) { const direct = await ping(a); const proxied = await ping(b); process.stdout.write(direct + ' ' + proxied + '\\n'); if (gapMs > 0) await pause(gapMs); }
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

/**
 * A pinger pinging an echo process directly and through a proxy of this process, a pair every `gapMs`,
 * its pairs kept while `collecting` (the measurement's client loop runs); stop() ends both processes and
 * the proxy and gives the cost of what was kept.
 */
export class RigProbe {
  collecting = false;
  private readonly direct: number[] = [];
  private readonly proxied: number[] = [];
  /** Settles when the pinger exits (rejects if it failed). */
  pinger: Promise<void> = Promise.resolve();
  private constructor(private readonly mesh: LinkMesh, private readonly children: ChildProcess[]) {}

  static async start(options: { readonly pings?: number; readonly gapMs?: number; readonly collecting?: boolean } = {}): Promise<RigProbe> {
    const mesh = new LinkMesh();
    const children: ChildProcess[] = [];
    const spawnProbe = (args: string[]): ChildProcess => {
      const child = spawn(process.execPath, ['-e', PROBE_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      reapOnExit(child);
      children.push(child);
      return child;
    };
    try {
      const echoPort = Number(await firstLine(spawnProbe(['echo'])));
      const proxiedAddress = await mesh.addClientLink('probe', 'echo', echoPort);
      const pinger = spawnProbe(['ping', String(echoPort), proxiedAddress.split(':')[1]!, String(options.pings ?? 0), String(options.gapMs ?? RIG_PROBE_INTERVAL_MS)]);
      const probe = new RigProbe(mesh, children);
      probe.collecting = options.collecting ?? true;
      probe.pinger = eachLine(pinger, (line) => probe.keep(line));
      probe.pinger.catch(() => undefined); // a pinger that fails mid-measurement leaves fewer pairs, not an unhandled rejection
      return probe;
    } catch (error) {
      await Promise.all(children.map(stopChild));
      await mesh.close();
      throw error;
    }
  }

  /** Pairs kept so far. */
  get pairs(): number {
    return this.direct.length;
  }

  private keep(line: string): void {
    const [direct, proxied] = line.split(' ').map(Number);
    if (!this.collecting || this.direct.length >= MAX_PROBE_PAIRS || !Number.isFinite(direct) || !Number.isFinite(proxied)) return;
    this.direct.push(direct!);
    this.proxied.push(proxied!);
  }

  /** Ends the probe's processes and proxy; the cost of the pairs kept, or undefined when none was. */
  async stop(): Promise<HopProbe | undefined> {
    await Promise.all(this.children.map(stopChild));
    await this.mesh.close();
    return this.direct.length === 0 ? undefined : hopCost(this.direct, this.proxied);
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

/** Calls `onLine` for each line the pinger prints; settles when it exits (an error with its stderr unless it exited 0 or was killed). */
function eachLine(child: ChildProcess, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => void (err = (err + chunk.toString()).slice(-500)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    child.once('exit', (code, signal) => (code === 0 || signal !== null ? resolve() : reject(new Error(`the rig's hop probe exited ${String(code)}: ${err.trim()}`))));
  });
}
