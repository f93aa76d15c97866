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

  describe('behind a trusted proxy (serve --trusted-proxy, ADR-18)', () => {
    const PROXY = 'spiffe://example.org/ns/lockstep/sa/envoy';
    const socketOf = (id: string) => ({ getPeerCertificate: () => ({ subjectaltname: `URI:${id}` }), authorized: true });
    const trusting = (xfcc: string | string[] | undefined) => ({ trustedProxies: new Set([PROXY]), xfcc });

    it("authorises a caller through a trusted proxy as itself, from the proxy's header", () => {
      expect(callerOf(socketOf(PROXY), undefined, true, trusting(`By=${PROXY};URI=${ID}`))).toEqual({ identity: ID, authenticated: true });
    });

    it('refuses the same header from a peer that is not a trusted proxy: it would otherwise be believed', () => {
      const other = 'spiffe://example.org/ns/payments/sa/operator';
      expect(() => callerOf(socketOf(other), undefined, true, trusting(`URI=${ID}`))).toThrow(/not a trusted proxy .* refused, never believed/);
      // Control: the same peer without the header is itself.
      expect(callerOf(socketOf(other), undefined, true, trusting(undefined))).toEqual({ identity: other, authenticated: true });
    });

    it('refuses a trusted proxy that forwards no caller, a header sent twice, and the header on a server without TLS', () => {
      expect(() => callerOf(socketOf(PROXY), undefined, true, trusting(undefined))).toThrow(/is missing/);
      expect(() => callerOf(socketOf(PROXY), undefined, true, trusting([`URI=${ID}`, `URI=${ID}`]))).toThrow(/came 2 times/);
      expect(() => callerOf({}, 'spiffe://dev/alice', false, trusting(`URI=${ID}`))).toThrow(/only from a trusted proxy over mTLS/);
    });
  });
});

