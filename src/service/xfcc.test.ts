import { describe, expect, it } from 'vitest';
import { isLockError } from '../../core/lock-error.js';
import { callerFromXfcc, parseXfcc } from './xfcc.js';

const PROXY = 'spiffe://example.org/ns/lockstep/sa/envoy';
const CALLER = 'spiffe://example.org/ns/payments/sa/ledger-writer';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isLockError(error, 'unauthenticated')).toBe(true);
    return String(error);
  }
  throw new Error('not refused');
}

describe("Envoy's x-forwarded-client-cert", () => {
  it('parses the pairs of Envoy\'s examples, quoted values with commas, semicolons and escaped quotes included', () => {
    const header = `By=${PROXY};Hash=468ed33be74eee6556d90c0149c1309e9ba61d6425303443c0748a02dd8de688;Subject="/C=US/ST=CA/L=San Francisco/OU=Lyft/CN=Test Client";URI=${CALLER}`;
    expect(parseXfcc(header)).toEqual([[['By', PROXY], ['Hash', '468ed33be74eee6556d90c0149c1309e9ba61d6425303443c0748a02dd8de688'], ['Subject', '/C=US/ST=CA/L=San Francisco/OU=Lyft/CN=Test Client'], ['URI', CALLER]]]);
    expect(parseXfcc('Subject="a,b;c=\\"d\\"";URI=x,By=y')).toEqual([[['Subject', 'a,b;c="d"'], ['URI', 'x']], [['By', 'y']]]);
  });

  it('takes the one spiffe:// URI of the one element a trusted proxy wrote', () => {
    expect(callerFromXfcc(`By=${PROXY};URI=${CALLER}`, PROXY)).toBe(CALLER);
    expect(callerFromXfcc(`URI=${CALLER};DNS=ledger.local`, PROXY)).toBe(CALLER);
  });

  it.each([
    ['missing', undefined, /is missing/],
    ['several elements (a chain of proxies)', `URI=${CALLER},By=${PROXY};URI=spiffe://example.org/ns/x/sa/y`, /2 elements/],
    ['written by another proxy', `By=spiffe://example.org/ns/evil/sa/proxy;URI=${CALLER}`, /not by the trusted proxy/],
    ['no spiffe URI', 'URI=https://example.org/x;DNS=a', /no spiffe:\/\/ URI/],
    ['two spiffe URIs', `URI=${CALLER};URI=spiffe://example.org/ns/x/sa/y`, /2 spiffe:\/\/ URIs/],
    ['a pair without =', `URI=${CALLER};garbage`, /without '='/],
    ['an unterminated quote', `Subject="abc;URI=${CALLER}`, /does not end/],
    ['an unquoted value with a quote', `URI=${CALLER};Subject=a"b`, /unquoted value/],
    ['an empty element', `URI=${CALLER},`, /pair without|empty element/],
    ['an oversized header', `URI=${CALLER};Subject="${'x'.repeat(5000)}"`, /above 4096/],
  ])('refuses a header that is %s', (_label, header, reason) => {
    expect(refusal(() => callerFromXfcc(header, PROXY))).toMatch(reason);
  });
});
