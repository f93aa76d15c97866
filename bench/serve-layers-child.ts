// One arbiter server of the serve-layers bench (issue 30): `lockstep serve`'s composition (src/commands/
// serve.ts runServe, single cluster, mTLS, --log-level warn) rebuilt from the same pieces with one layer left
// out, so the parent can read what each layer costs serve's process per acquire+release. Started by
// serve-layers.ts through bin/run-compiled.mjs: `serve-layers-child.ts LAYER PORT ENDPOINTS POLICYDIR CERT KEY CA`.
// It says `listening` over IPC once it serves, and exits when its parent's channel closes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Arbiter } from '../core/arbiter/arbiter.js';
import { QuotaGate } from '../core/arbiter/quotas.js';
import type { Authorizer, ClassLookup } from '../core/arbiter/policy.js';
import type { ArbiterService } from '../core/ports/caller.js';
import { createCryptoRandom, createRealClock } from '../src/clock/index.js';
import { createEtcdLockLog } from '../src/etcd/index.js';
import { todayUtc } from '../src/policy-files.js';
import { createServeTelemetry } from '../src/service/serve-telemetry.js';
import { ServingPolicy, loadPolicy } from '../src/service/policy-reload.js';
import { startArbiterServer } from '../src/service/server.js';
import { logArbiterCalls } from '../src/logging/index.js';
import { benchClasses, benchGrants } from './workloads/bench-world.js';
import { type Layer, LAYERS } from './serve-layers-names.js';


const [layerArg, portArg, endpointsArg, policyDir, ...tlsFiles] = process.argv.slice(2);
const layer = LAYERS.find((name) => name === layerArg);
if (layer === undefined || portArg === undefined || endpointsArg === undefined || policyDir === undefined || tlsFiles.length !== 3) {
  process.stderr.write('usage: serve-layers-child.ts LAYER PORT ENDPOINTS POLICYDIR CERT KEY CA\n');
  process.exit(2);
}
const without = (name: Layer): boolean => layer === name || layer === 'all';

const loaded = await loadPolicy({ classes: join(policyDir, 'classes'), grants: join(policyDir, 'grants') }, todayUtc());
if ('problems' in loaded) throw new Error(`the bench policy has problems: ${loaded.problems.join('; ')}`);
const serving = new ServingPolicy(loaded.loaded);
// Without the serving policy: the in-process bench's registry and prefix grants (bench-world.ts).
const classes: ClassLookup = without('policy') ? benchClasses() : serving;
const authorizer: Authorizer = without('policy') ? benchGrants(1) : serving;
const random = createCryptoRandom();
const telemetry = createServeTelemetry({ cluster: 'entity-1', classes, json: false, level: 'warn', write: (line) => process.stderr.write(line) });
const log = createEtcdLockLog({ endpoints: endpointsArg.split(',') });
const arbiter = new Arbiter({ log: without('etcd-timing') ? log : telemetry.timedLog(log), clock: createRealClock(), random, classes, authorizer, approvalIdPrefix: `${Math.floor(random.next() * 2 ** 32).toString(16)}-` });
const gated: ArbiterService = without('quotas') ? arbiter : new QuotaGate(arbiter, { clock: createRealClock(), limitsOf: (identity) => serving.limitsOf(identity) });
const logged = without('call-log') ? gated : logArbiterCalls(gated, telemetry.logger);
const served = without('arbiter-metrics') ? logged : telemetry.metrics.instrument(logged, arbiter);
const [cert, key, clientCa] = await Promise.all(tlsFiles.map((file) => readFile(file)));
await startArbiterServer({ arbiter: served, host: '127.0.0.1', port: Number(portArg), tls: { cert: cert as Buffer, key: key as Buffer, clientCa: clientCa as Buffer }, onUnexpected: (error) => process.stderr.write(`serve-layers child ${layer}: ${String(error)}\n`) });
process.send?.({ kind: 'listening' });
process.on('disconnect', () => process.exit(0));
