// lock.v1's handlers: each translates the wire message, calls the arbiter as the transport's caller,
// and translates the answer back (STYLE.md, etcd's v3rpc: no rule lives in a handler). The unary ones are
// a table (LOCK_UNARY) served two ways: by Connect (lockServiceImpl) and by the unary fast path
// (unary-fast-path.ts, issue 30), through the same call guard.
import type { DescMessage, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ArbiterService, Caller } from '../../core/ports/caller.js';
import { parseToken } from '../../core/token.js';
import { leaseId } from '../../core/units.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import type { CallGuard } from './call-guard.js';
import { grantToWire, inspectToWire, keyClassToWire } from './wire-messages.js';

type Methods = typeof LockService.method;
type UnaryName = Exclude<keyof Methods, 'keepAlive'>;

/** One unary method: whether it starts something (refused while the server drains, call-guard.ts) and its adapter. */
export interface UnaryHandler<I extends DescMessage, O extends DescMessage> {
  readonly starts: boolean;
  readonly call: (arbiter: ArbiterService, caller: Caller, request: MessageShape<I>) => Promise<MessageInitShape<O>>;
}

type UnaryTable = { readonly [N in UnaryName]: UnaryHandler<Methods[N]['input'], Methods[N]['output']> };

export const LOCK_UNARY: UnaryTable = {
  openSession: {
    starts: true,
    async call(arbiter, caller, request) {
      const session = await arbiter.openSession(caller, { ttlSeconds: request.ttlSeconds, instance: request.instance });
      return { session: { sessionId: session.sessionId, identity: session.identity, instance: session.instance, ttlSeconds: session.ttlSeconds } };
    },
  },
  closeSession: {
    starts: false,
    async call(arbiter, caller, request) {
      await arbiter.closeSession(caller, { sessionId: leaseId(request.sessionId) });
      return {};
    },
  },
  acquire: {
    starts: true,
    async call(arbiter, caller, request) {
      const grant = await arbiter.acquire(caller, { sessionId: leaseId(request.sessionId), key: request.key, className: request.className, waitMs: request.waitMs });
      return { grant: grantToWire(grant) };
    },
  },
  release: {
    starts: false,
    // core's token rule (ADR-02): a malformed token is invalid-argument, before the arbiter is asked.
    call: (arbiter, caller, request) => arbiter.release(caller, { sessionId: leaseId(request.sessionId), key: request.key, token: parseToken(request.token) }),
  },
  validate: {
    starts: false,
    async call(arbiter, caller, request) {
      const answer = await arbiter.validate(caller, { key: request.key, token: request.token });
      return { valid: answer.valid, currentToken: answer.currentToken?.toString() ?? '' };
    },
  },
  inspect: { starts: false, call: async (arbiter, caller, request) => inspectToWire(await arbiter.inspect(caller, request.key)) },
  describeKey: { starts: false, call: async (arbiter, caller, request) => keyClassToWire(await arbiter.describeKey(caller, { key: request.key, className: request.className })) },
};

export function lockServiceImpl(arbiter: ArbiterService, guard: CallGuard): ServiceImpl<typeof LockService> {
  const unary = <N extends UnaryName>(name: N) => {
    const handler = LOCK_UNARY[name] as UnaryHandler<Methods[N]['input'], Methods[N]['output']>;
    return (request: MessageShape<Methods[N]['input']>, context: Parameters<CallGuard['run']>[0]) => guard.run(context, (caller) => handler.call(arbiter, caller, request), handler.starts);
  };
  return {
    openSession: unary('openSession'),
    // One stream per session: each request is one renewal, answered in order (lock.proto).
    async *keepAlive(requests, context) {
      for await (const request of requests) {
        const renewed = await guard.run(context, (caller) => arbiter.keepAlive(caller, { sessionId: leaseId(request.sessionId) }));
        yield { sessionId: request.sessionId, ttlSeconds: renewed.ttlSeconds };
      }
    },
    closeSession: unary('closeSession'),
    acquire: unary('acquire'),
    release: unary('release'),
    validate: unary('validate'),
    inspect: unary('inspect'),
    describeKey: unary('describeKey'),
  };
}
