// Key affinity through a proxy (ADR-14, ADR-18): each key's FIFO line lives on one arbiter, so every call
// about a key must reach the same one. Without a proxy the client picks it by rendezvous hashing
// (network-arbiter.ts); behind Envoy, its ring-hash picks it from this header, which the client sets on
// every unary call whose request names a key. deploy/envoy.yaml's hash policy reads the same name
// (src/deploy/deploy-files.test.ts checks they agree).
import type { Interceptor } from '@connectrpc/connect';

export const ROUTING_KEY_HEADER = 'x-lockstep-key';

/** The key as a header value: as it is when every character is visible ASCII, else percent-encoded. */
export function routingKeyValue(key: string): string {
  return /^[\x21-\x7e]*$/.test(key) ? key : encodeURIComponent(key);
}

/** Sets the routing header from the request message's `key` field, when it has one. */
export const routingKeyInterceptor: Interceptor = (next) => (request) => {
  if (!request.stream) {
    const key = (request.message as { key?: unknown }).key;
    if (typeof key === 'string' && key !== '') request.header.set(ROUTING_KEY_HEADER, routingKeyValue(key));
  }
  return next(request);
};
