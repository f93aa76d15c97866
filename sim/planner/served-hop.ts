// The lock.v1 hop's CPU in the priced world (issue 32, the quorum model's unpriced hop): a real client
// reaches the arbiter through `lockstep serve`, whose gRPC server decodes, dispatches and encodes every
// call on the arbiter's one event-loop thread, and whose network client spends its own CPU per call. The
// bench measures both (bench/profile.ts servedHopCosts); here each is paid once per lock.v1 call, before
// the call: the client's on the client process, the server's on the same thread the arbiter pays its
// CPU per etcd call on (chargeCpuPerCall), so a busy arbiter delays both.
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import { ARBITER_METHOD_NAMES } from '../../core/ports/arbiter-methods.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { Cpu } from '../cluster/cpu.js';
import type { SimProcess } from '../process/process.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { chargeCpuPerCall, payingCpu } from '../world/cpu-charged-log.js';

/** The served hop's CPU per lock.v1 call, ms: the network client's and `lockstep serve`'s beyond the arbiter's own. */
export interface ServedHopCost {
  readonly clientMsPerCall: number;
  readonly serveMsPerCall: number;
}

/** `api` with `costMs` of `process`'s CPU paid before each call (a FIFO: the client's one thread); unchanged for 0. */
export function chargeClientCalls(api: ArbiterApi, process: SimProcess, costMs: number): ArbiterApi {
  if (costMs <= 0) return api;
  const paid = payingCpu(process, new Cpu(process), costMs);
  const call = (method: keyof ArbiterApi) => (request: never) => paid(() => (api[method] as (r: never) => Promise<unknown>)(request));
  return Object.fromEntries(ARBITER_METHOD_NAMES.map((method) => [method, call(method)])) as unknown as ArbiterApi;
}

/** `service` with `costMs` of `cpu` (the arbiter's thread) paid before each served call; unchanged for 0. */
export function chargeServedCalls(service: ArbiterService, process: SimProcess, cpu: Cpu, costMs: number): ArbiterService {
  if (costMs <= 0) return service;
  const paid = payingCpu(process, cpu, costMs);
  const call = (method: keyof ArbiterService) => (caller: never, request: never) => paid(() => (service[method] as (c: never, r: never) => Promise<unknown>).call(service, caller, request));
  return Object.fromEntries(ARBITER_METHOD_NAMES.map((method) => [method, call(method)])) as unknown as ArbiterService;
}

/**
 * The World options that charge an arbiter's one thread: its CPU per etcd call and, with a served hop,
 * its server side per lock.v1 call, on one Cpu per arbiter incarnation (the World wraps the log first,
 * then the service, in each start), and the client side per call on each client.
 */
export function arbiterThreadCharges(arbiterCostMsPerCall: number, hop: ServedHopCost | undefined): {
  wrapArbiterLog?: (log: LockLog, process: SimProcess) => LockLog;
  wrapArbiterService?: (service: ArbiterService, process: SimProcess) => ArbiterService;
} {
  const serveMs = hop?.serveMsPerCall ?? 0;
  if (arbiterCostMsPerCall <= 0 && serveMs <= 0) return {};
  const threads = new Map<SimProcess, Cpu>();
  return {
    wrapArbiterLog: (log, process) => {
      const cpu = new Cpu(process); // a new incarnation: nothing queued
      threads.set(process, cpu);
      return chargeCpuPerCall(log, process, arbiterCostMsPerCall, cpu);
    },
    ...(serveMs > 0 ? { wrapArbiterService: (service: ArbiterService, process: SimProcess) => chargeServedCalls(service, process, threads.get(process) ?? new Cpu(process), serveMs) } : {}),
  };
}
