// What every stack of the RPC-stack bench (issue 30, bench/rpc-stacks.ts) carries: lock.v1's Acquire,
// one canned request and one canned answer, so the servers measure the RPC stack alone (no arbiter, no
// etcd). The fast path is the shipped server (startArbiterServer) over an arbiter that answers the canned
// grant; Connect, grpc-js and the bare HTTP/2 echo answer the same message (or its bytes) themselves.
import type { ServiceDefinition } from '@grpc/grpc-js';
import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { ArbiterService } from '../core/ports/caller.js';
import type { Grant } from '../core/ports/arbiter-api.js';
import { packToken } from '../core/token.js';
import { leaseId } from '../core/units.js';
import { type AcquireRequest, AcquireRequestSchema, type AcquireResponse, AcquireResponseSchema, LockService } from '../src/gen/lockstep/lock/v1/lock_pb.js';
import { grantToWire } from '../src/service/wire-messages.js';

/** The caller of every call: the client certificate's URI SAN with mTLS, the identity header without. */
export const BENCH_IDENTITY = 'spiffe://lockstep.bench/ns/bench/sa/rpc';
/** Every call's deadline: far above any slice, so a slow call is a slow call, not an error. */
export const CALL_TIMEOUT_MS = 10_000;

const SESSION_ID = leaseId(7_587_890_123_456_789n);
const CANNED_GRANT: Grant = {
  key: 'bench/rpc-stacks/k-0001',
  token: packToken(3, 987_654_321n),
  epoch: 3,
  revision: 987_654_321n,
  sessionId: SESSION_ID,
  identity: BENCH_IDENTITY,
  className: 'bench',
  reentered: false,
};

export const CANNED_REQUEST: AcquireRequest = create(AcquireRequestSchema, { sessionId: SESSION_ID, key: CANNED_GRANT.key, className: 'bench', waitMs: 0 });
export const CANNED_RESPONSE: AcquireResponse = create(AcquireResponseSchema, { grant: grantToWire(CANNED_GRANT) });
export const ACQUIRE_PATH = `/${LockService.typeName}/${LockService.method.acquire.name}`;

/** The gRPC frame (flag byte, 4-byte length, message) of a message: what the bare echo sends and answers. */
function frameOf(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

export const REQUEST_FRAME = frameOf(toBinary(AcquireRequestSchema, CANNED_REQUEST));
export const RESPONSE_FRAME = frameOf(toBinary(AcquireResponseSchema, CANNED_RESPONSE));

/** An arbiter that grants the canned grant at once and does nothing else: the fast path's handler runs, no arbiter does. */
export function cannedArbiter(): ArbiterService {
  const nothing = () => Promise.reject(new Error('the RPC-stack bench only calls Acquire'));
  const methods = ['openSession', 'keepAlive', 'closeSession', 'release', 'validate', 'inspect', 'describeKey', 'requestForceRelease', 'approveForceRelease', 'requestEpochAdvance', 'approveEpochAdvance', 'status'];
  return { ...Object.fromEntries(methods.map((name) => [name, nothing])), acquire: () => Promise.resolve(CANNED_GRANT) } as unknown as ArbiterService;
}

/** lock.v1's Acquire for grpc-js, with protobuf-es doing the (de)serialising. */
export const GRPC_JS_ACQUIRE = {
  acquire: {
    path: ACQUIRE_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: (message: AcquireRequest) => Buffer.from(toBinary(AcquireRequestSchema, message)),
    requestDeserialize: (bytes: Buffer) => fromBinary(AcquireRequestSchema, bytes),
    responseSerialize: (message: AcquireResponse) => Buffer.from(toBinary(AcquireResponseSchema, message)),
    responseDeserialize: (bytes: Buffer) => fromBinary(AcquireResponseSchema, bytes),
  },
} satisfies ServiceDefinition;

/** Whether an answer is the canned one: the decoded message for the gRPC stacks, its frame's bytes for the bare echo. */
export function isCannedAnswer(answer: unknown): boolean {
  if (answer instanceof Uint8Array) return Buffer.compare(answer, RESPONSE_FRAME) === 0;
  return typeof answer === 'object' && answer !== null && '$typeName' in answer && answer.$typeName === AcquireResponseSchema.typeName && equals(AcquireResponseSchema, answer as AcquireResponse, CANNED_RESPONSE);
}
