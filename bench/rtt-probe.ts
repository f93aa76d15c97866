// Loopback round-trip time: a one-byte TCP ping-pong on 127.0.0.1, the network the local cluster's
// members talk over. The simulator's link latency is half of this per direction; a saved profile
// carries the samples so the planner can use this machine's loopback rather than a guess.
import { type AddressInfo, type Socket, createServer, connect } from 'node:net';
import { LatencyHistogram, type LatencySummary } from './histogram.js';

export interface RttProbeOptions {
  readonly maxSamples: number;
  readonly maxDurationMs: number;
  readonly signal?: AbortSignal;
}

export interface RttProbe {
  readonly result: LatencySummary;
  readonly samplesMs: readonly number[];
}

export async function probeLoopbackRtt(options: RttProbeOptions): Promise<RttProbe> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => socket.write(chunk));
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const client = await new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
  const histogram = new LatencyHistogram();
  const samplesMs: number[] = [];
  const ping = Buffer.from([0x2a]);
  try {
    const startMs = performance.now();
    while (samplesMs.length < options.maxSamples && performance.now() - startMs < options.maxDurationMs && options.signal?.aborted !== true) {
      const beforeMs = performance.now();
      await new Promise<void>((resolve, reject) => {
        client.once('data', () => resolve());
        client.once('error', reject);
        client.write(ping);
      });
      client.removeAllListeners('error');
      const tookMs = performance.now() - beforeMs;
      histogram.record(tookMs);
      samplesMs.push(tookMs);
    }
  } finally {
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return { result: histogram.summary(), samplesMs };
}
