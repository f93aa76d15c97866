// `npx tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--top N] [--from-ms A --to-ms B]`: where a process's CPU went (issue 30),
// self time by layer (the RPC stack, protobuf, the etcd client, node's HTTP/2 and streams, lockstep's own
// code, GC, native) and the top functions by self time. Idle time is left out of the shares.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly startTime: number;
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The layer a frame belongs to, by its script's path; the first rule that matches wins. */
const LAYERS: ReadonlyArray<readonly [string, RegExp]> = [
  ['connect-es (@connectrpc)', /node_modules\/@connectrpc\//],
  ['protobuf-es (@bufbuild)', /node_modules\/@bufbuild\//],
  ['grpc-js (@grpc/grpc-js)', /node_modules\/@grpc\/grpc-js\//],
  ['protobufjs', /node_modules\/(protobufjs|@protobufjs)\//],
  ['etcd3 client', /node_modules\/etcd3\//],
  ['pino (logging)', /node_modules\/(pino|sonic-boom|thread-stream)/],
  ['prom-client (metrics)', /node_modules\/prom-client\//],
  ['other packages', /node_modules\//],
  ['lockstep core/', /\/core\//],
  ['lockstep src/', /\/src\//],
  ['lockstep bench/', /\/bench\//],
  ['node: http2', /^node:internal\/http2/],
  ['node: abort signals, events', /^node:(internal\/(abort_controller|event_target|per_context\/domexception)|events)/],
  ['node: timers, microtasks', /^node:internal\/(timers|process\/task_queues)/],
  ['node: streams', /^node:internal\/(streams|webstreams)/],
  ['node: other', /^node:/],
];

export function layerOf(frame: ProfileNode['callFrame']): string {
  if (frame.url === '') {
    if (frame.functionName === '(garbage collector)') return 'GC';
    if (frame.functionName === '(idle)') return 'idle';
    return 'native and V8 (program)';
  }
  return LAYERS.find(([, pattern]) => pattern.test(frame.url))?.[0] ?? 'other scripts';
}

export interface ProfileSummary {
  readonly busyMs: number;
  readonly layers: ReadonlyArray<{ readonly layer: string; readonly percent: number }>;
  readonly top: ReadonlyArray<{ readonly fn: string; readonly percent: number }>;
}

/** Only the samples from `fromMs` to `toMs` after the profile's start count (a process's start-up left out). */
export function summarize(profile: CpuProfile, topN = 15, fromMs = 0, toMs = Infinity): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let atUs = 0;
  profile.samples.forEach((id, i) => {
    const deltaUs = profile.timeDeltas[i] ?? 0;
    atUs += deltaUs;
    if (atUs >= fromMs * 1000 && atUs <= toMs * 1000) selfUs.set(id, (selfUs.get(id) ?? 0) + deltaUs);
  });
  const layers = new Map<string, number>();
  const fns = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const layer = layerOf(frame);
    if (layer === 'idle') continue;
    busyUs += us;
    layers.set(layer, (layers.get(layer) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist\/js|lockstep)\//, '')}:${frame.lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const percent = (us: number) => Math.round((1000 * us) / Math.max(1, busyUs)) / 10;
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    busyMs: Math.round(busyUs / 1000),
    layers: sorted(layers).map(([layer, us]) => ({ layer, percent: percent(us) })),
    top: sorted(fns).slice(0, topN).map(([fn, us]) => ({ fn, percent: percent(us) })),
  };
}

if (process.argv[1]?.endsWith('cpu-profile-summary.ts') === true || process.argv[1]?.endsWith('cpu-profile-summary.js') === true) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' }, 'from-ms': { type: 'string', default: '0' }, 'to-ms': { type: 'string' } } });
  for (const file of positionals) {
    const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(values.top), Number(values['from-ms']), values['to-ms'] === undefined ? Infinity : Number(values['to-ms']));
    process.stdout.write(`${file}: ${summary.busyMs} ms busy\n`);
    for (const { layer, percent } of summary.layers) process.stdout.write(`  ${String(percent).padStart(5)}%  ${layer}\n`);
    process.stdout.write('  top self time:\n');
    for (const { fn, percent } of summary.top) process.stdout.write(`  ${String(percent).padStart(5)}%  ${fn}\n`);
  }
}
