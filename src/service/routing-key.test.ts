import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROUTING_KEY_HEADER, routingKeyInterceptor, routingKeyValue } from './routing-key.js';

/** What the interceptor leaves in the headers of a request carrying `message`. */
async function headersFor(message: object, stream = false): Promise<Headers> {
  const header = new Headers();
  const request = { stream, message, header } as unknown as Parameters<ReturnType<typeof routingKeyInterceptor>>[0];
  await routingKeyInterceptor(async () => ({}) as never)(request);
  return header;
}

describe('the routing key header (key affinity through Envoy, ADR-14)', () => {
  it('carries the key of a request that names one, and nothing for one that does not', async () => {
    expect((await headersFor({ sessionId: 1n, key: 'payments/ledger/42' })).get(ROUTING_KEY_HEADER)).toBe('payments/ledger/42');
    expect((await headersFor({ ttlSeconds: 15 })).has(ROUTING_KEY_HEADER)).toBe(false);
    expect((await headersFor({ key: '' })).has(ROUTING_KEY_HEADER)).toBe(false);
  });

  it('percent-encodes a key with characters a header cannot carry, so one key is one value', () => {
    expect(routingKeyValue('payments/ledger/42')).toBe('payments/ledger/42');
    expect(routingKeyValue('payments/ledger/é 1')).toBe('payments%2Fledger%2F%C3%A9%201');
  });

  it('is the header deploy/envoy.yaml hashes on', () => {
    const envoy = JSON.stringify(parse(readFileSync(join(import.meta.dirname, '..', '..', 'deploy', 'envoy.yaml'), 'utf8')));
    const hashed = [...envoy.matchAll(/"header_name":"([^"]+)"/g)].map((m) => m[1]);
    expect(hashed).toEqual([ROUTING_KEY_HEADER]);
  });
});
