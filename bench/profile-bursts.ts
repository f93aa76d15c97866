// `npx tsx bench/profile-bursts.ts FILE.cpuprofile [--from-ms A --to-ms B] [--cycles N]`: a process's CPU by
// event-loop wakeup (issue 30, docs/performance.md "Serve's CPU per cycle, per wakeup"). A wakeup is a burst
// of busy samples between idle ones; it is named by what ran in it: a lock.v1 request arriving (a server
// stream made), an etcd answer (grpc-js handing a response up), the trailers node sends a setImmediate
// later, a timer, or only native code (no JS: TLS and HTTP/2 housekeeping, such as etcd's pings). Take the
// profile with a short interval (`--cpu-prof-interval 50`): most wakeups last well under a millisecond.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CpuProfile, ProfileNode } from './cpu-profile-summary.js';

/** What ran, by the frames that only it runs; a burst may hold several (a busy loop reads two sockets at once). */
const MARKERS: ReadonlyArray<readonly [string, (frame: ProfileNode['callFrame']) => boolean]> = [
  ['lock.v1 request', (f) => f.functionName === 'ServerHttp2Stream' || (f.url.endsWith('unary-fast-path.js') && f.functionName === 'readMessage')],
  ['etcd answer', (f) => f.url.endsWith('subchannel-call.js') && /^(tryPush|handleTrailers|endCall|outputStatus)$/.test(f.functionName)],
  ['trailers', (f) => f.functionName === 'finishSendTrailers'],
  ['timer', (f) => f.functionName === 'listOnTimeout' || f.functionName === 'processTimers'],
];
const IDLE = '(idle)';
const JS_FREE = new Set(['(program)', '(garbage collector)', '(root)', IDLE]);

export interface BurstKind {
  readonly kind: string;
  readonly bursts: number;
  readonly cpuMs: number;
}

/** Bursts from `fromMs` to `toMs` after the profile's start, by kind, most CPU first. A sample weighs the time to the next one, at most `maxSampleUs` (a descheduled sampler's gap is not CPU). */
export function profileBursts(profile: CpuProfile, fromMs = 0, toMs = Infinity, maxSampleUs = 200): BurstKind[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const kinds = new Map<string, { bursts: number; cpuUs: number }>();
  let burst: { marks: Set<string>; js: boolean; cpuUs: number } | undefined;
  const close = (): void => {
    if (burst === undefined) return;
    const kind = burst.marks.size > 0 ? [...burst.marks].sort().join(' + ') : burst.js ? 'other JS' : 'native only';
    const entry = kinds.get(kind) ?? { bursts: 0, cpuUs: 0 };
    entry.bursts++;
    entry.cpuUs += burst.cpuUs;
    kinds.set(kind, entry);
    burst = undefined;
  };
  let atUs = 0;
  profile.samples.forEach((id, i) => {
    atUs += profile.timeDeltas[i] ?? 0;
    if (atUs < fromMs * 1000 || atUs > toMs * 1000) return close();
    const leaf = byId.get(id);
    if (leaf === undefined || leaf.callFrame.functionName === IDLE) return close();
    burst ??= { marks: new Set(), js: false, cpuUs: 0 };
    burst.cpuUs += Math.min(profile.timeDeltas[i + 1] ?? 0, maxSampleUs);
    for (let node: ProfileNode | undefined = leaf; node !== undefined; node = byId.get(parent.get(node.id) ?? -1)) {
      if (!JS_FREE.has(node.callFrame.functionName)) burst.js = true;
      for (const [mark, matches] of MARKERS) if (matches(node.callFrame)) burst.marks.add(mark);
    }
  });
  close();
  return [...kinds].map(([kind, k]) => ({ kind, bursts: k.bursts, cpuMs: k.cpuUs / 1000 })).sort((a, b) => b.cpuMs - a.cpuMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'from-ms': { type: 'string' }, 'to-ms': { type: 'string' }, cycles: { type: 'string' }, 'max-sample-us': { type: 'string', default: '200' } } });
  const file = positionals[0];
  if (file === undefined) throw new Error('usage: profile-bursts.ts FILE.cpuprofile [--from-ms A --to-ms B] [--cycles N]');
  const kinds = profileBursts(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(values['from-ms'] ?? 0), Number(values['to-ms'] ?? Infinity), Number(values['max-sample-us']));
  const cycles = Number(values.cycles ?? 0);
  const total = kinds.reduce((sum, k) => sum + k.cpuMs, 0);
  process.stdout.write(`${'wakeup kind'.padEnd(48)} ${'bursts'.padStart(7)} ${'CPU ms'.padStart(8)} ${'us/burst'.padStart(8)} ${cycles > 0 ? 'bursts/cycle  us/cycle' : ''}\n`);
  for (const k of [...kinds, { kind: 'total', bursts: kinds.reduce((sum, x) => sum + x.bursts, 0), cpuMs: total }]) {
    const perCycle = cycles > 0 ? `${(k.bursts / cycles).toFixed(2).padStart(12)} ${((k.cpuMs * 1000) / cycles).toFixed(0).padStart(9)}` : '';
    process.stdout.write(`${k.kind.padEnd(48)} ${String(k.bursts).padStart(7)} ${k.cpuMs.toFixed(1).padStart(8)} ${((k.cpuMs * 1000) / Math.max(1, k.bursts)).toFixed(0).padStart(8)} ${perCycle}\n`);
  }
}
