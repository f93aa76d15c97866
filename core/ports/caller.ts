// ADR-19: who is calling is the transport's to say, never a request field. With mTLS the caller is the
// SPIFFE ID of the client certificate (src/service); in the simulator it is the sending process's
// identity (sim/rpc); in-process it is whoever constructed the binding (a command run with --identity,
// a test, a scenario standing in for an operator).
import type { ArbiterApi } from './arbiter-api.js';

export interface Caller {
  readonly identity: string;
  /**
   * Whether the transport proved the identity (a verified client certificate, the simulator's own
   * process table). An unauthenticated caller may lock what its grants allow on a trusted single-team
   * setup, but never acts as an operator (ADR-20).
   */
  readonly authenticated: boolean;
}

export function authenticated(identity: string): Caller {
  return { identity, authenticated: true };
}

export function unauthenticated(identity: string): Caller {
  return { identity, authenticated: false };
}

/** The server side of lock.v1: every method is told who calls. */
export type ArbiterService = {
  readonly [M in keyof ArbiterApi]: (caller: Caller, ...request: Parameters<ArbiterApi[M]>) => ReturnType<ArbiterApi[M]>;
};

/** The client side for one caller: what a transport hands the client library. */
export function actingAs(service: ArbiterService, caller: Caller): ArbiterApi {
  return {
    openSession: (request) => service.openSession(caller, request),
    keepAlive: (request) => service.keepAlive(caller, request),
    closeSession: (request) => service.closeSession(caller, request),
    acquire: (request) => service.acquire(caller, request),
    release: (request) => service.release(caller, request),
    validate: (request) => service.validate(caller, request),
    inspect: (key) => service.inspect(caller, key),
    describeKey: (request) => service.describeKey(caller, request),
    requestForceRelease: (request) => service.requestForceRelease(caller, request),
    approveForceRelease: (request) => service.approveForceRelease(caller, request),
    requestEpochAdvance: (request) => service.requestEpochAdvance(caller, request),
    approveEpochAdvance: (request) => service.approveEpochAdvance(caller, request),
    status: () => service.status(caller),
  };
}
