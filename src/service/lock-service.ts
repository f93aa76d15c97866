// lock.v1's handlers: each translates the wire message, calls the arbiter as the transport's caller,
// and translates the answer back (STYLE.md, etcd's v3rpc: no rule lives in a handler).
import type { ServiceImpl } from '@connectrpc/connect';
import type { ArbiterService } from '../../core/ports/caller.js';
import { parseToken } from '../../core/token.js';
import { leaseId } from '../../core/units.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import type { CallGuard } from './call-guard.js';
import { grantToWire, inspectToWire, keyClassToWire } from './wire-messages.js';

/** Refused while the server drains (call-guard.ts): they would start a session or a hold. */
const STARTS = true;

export function lockServiceImpl(arbiter: ArbiterService, guard: CallGuard): ServiceImpl<typeof LockService> {
  return {
    openSession: (request, context) =>
      guard.run(context, async (caller) => {
        const session = await arbiter.openSession(caller, { ttlSeconds: request.ttlSeconds, instance: request.instance });
        return { session: { sessionId: session.sessionId, identity: session.identity, instance: session.instance, ttlSeconds: session.ttlSeconds } };
      }, STARTS),
    // One stream per session: each request is one renewal, answered in order (lock.proto).
    async *keepAlive(requests, context) {
      for await (const request of requests) {
        const renewed = await guard.run(context, (caller) => arbiter.keepAlive(caller, { sessionId: leaseId(request.sessionId) }));
        yield { sessionId: request.sessionId, ttlSeconds: renewed.ttlSeconds };
      }
    },
    closeSession: (request, context) =>
      guard.run(context, async (caller) => {
        await arbiter.closeSession(caller, { sessionId: leaseId(request.sessionId) });
        return {};
      }),
    acquire: (request, context) =>
      guard.run(context, async (caller) => {
        const grant = await arbiter.acquire(caller, { sessionId: leaseId(request.sessionId), key: request.key, className: request.className, waitMs: request.waitMs });
        return { grant: grantToWire(grant) };
      }, STARTS),
    release: (request, context) =>
      guard.run(context, async (caller) => {
        // core's token rule (ADR-02): a malformed token is invalid-argument, before the arbiter is asked.
        return arbiter.release(caller, { sessionId: leaseId(request.sessionId), key: request.key, token: parseToken(request.token) });
      }),
    validate: (request, context) =>
      guard.run(context, async (caller) => {
        const answer = await arbiter.validate(caller, { key: request.key, token: request.token });
        return { valid: answer.valid, currentToken: answer.currentToken?.toString() ?? '' };
      }),
    inspect: (request, context) => guard.run(context, async (caller) => inspectToWire(await arbiter.inspect(caller, request.key))),
    describeKey: (request, context) => guard.run(context, async (caller) => keyClassToWire(await arbiter.describeKey(caller, { key: request.key, className: request.className }))),
  };
}
