import { describe, expect, it } from 'vitest';
import { isLockError } from '../../core/lock-error.js';
import { callerOf, sanUris, spiffeIdOf } from './peer-identity.js';

const ID = 'spiffe://example.org/ns/payments/sa/ledger-writer';

describe('the caller from the client certificate (ADR-19)', () => {
  it('reads the one spiffe:// URI among the SAN entries, quoted or not', () => {
    expect(spiffeIdOf(`DNS:ledger.local, URI:${ID}, IP Address:127.0.0.1`)).toBe(ID);
    expect(sanUris(`URI:"spiffe://example.org/a,b", URI:https://x`)).toEqual(['spiffe://example.org/a,b', 'https://x']);
  });

  it.each([
    ['no SAN at all', undefined],
    ['no URI', 'DNS:ledger.local'],
    ['a URI that is not SPIFFE', 'URI:https://example.org/ledger'],
    ['two SPIFFE IDs', `URI:${ID}, URI:spiffe://example.org/ns/payments/sa/operator`],
  ])('refuses a certificate with %s', (_label, san) => {
    let refused: unknown;
    try {
      spiffeIdOf(san);
    } catch (error) {
      refused = error;
    }
    expect(isLockError(refused, 'unauthenticated')).toBe(true);
    expect(String(refused)).toContain('exactly one SPIFFE ID');
  });

  it('takes an unauthenticated identity from the header only without TLS, and refuses a request that names none', () => {
    expect(callerOf({}, 'spiffe://dev/alice', false)).toEqual({ identity: 'spiffe://dev/alice', authenticated: false });
    expect(() => callerOf({}, undefined, false)).toThrow(/lockstep-identity header/);
    // With TLS the header is ignored: a socket without a verified certificate is refused whatever it claims.
    const unverified = { getPeerCertificate: () => ({ subjectaltname: `URI:${ID}` }), authorized: false };
    expect(() => callerOf(unverified, 'spiffe://dev/alice', true)).toThrow(/no client certificate the server trusts/);
    const verified = { getPeerCertificate: () => ({ subjectaltname: `URI:${ID}` }), authorized: true };
    expect(callerOf(verified, 'spiffe://dev/alice', true)).toEqual({ identity: ID, authenticated: true });
  });
});
