// One explorer worker thread: given a profile, runs the exploration runs the pool hands it, one at a
// time, and answers each with its verdict (and, for a failure, the run artifact as JSON).
import { parentPort, workerData } from 'node:worker_threads';
import { exploreRun } from '../../scenarios/explore.js';
import { toJson } from '../../scenarios/history.js';
import { type ProfileSpec, profileOf, watchdog } from './profile.js';
import { yieldToHost } from '../host-yield.js';
import type { FromWorker, ToWorker } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('src/explore/worker.ts runs as a worker thread (src/explore/pool.ts starts it)');
const { spec, baseSeed } = workerData as { spec: ProfileSpec; baseSeed: number };
const profile = profileOf(spec);

port.on('message', (message: ToWorker) => {
  if (message.type === 'stop') {
    port.close();
    return;
  }
  void exploreRun(profile, spec.variant, baseSeed, message.run, yieldToHost, watchdog).then(
    (result) => port.postMessage({ type: 'verdict', verdict: result.verdict, ...(result.artifact === undefined ? {} : { artifactJson: toJson(result.artifact) }) } satisfies FromWorker),
    (error: unknown) => port.postMessage({ type: 'error', run: message.run, message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies FromWorker),
  );
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
