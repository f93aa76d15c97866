import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatToken, packToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';
import { createTokenFingerprinter, tokenFingerprint } from './token-fingerprint.js';

const token = packToken(1, 2_814n);

describe('token fingerprints (ADR-22)', () => {
  it('are 8 hex digits, stable within a process, different for different tokens', () => {
    expect(tokenFingerprint(token)).toMatch(/^[0-9a-f]{8}$/);
    expect(tokenFingerprint(token)).toBe(tokenFingerprint(packToken(1, 2_814n)));
    expect(tokenFingerprint(packToken(1, 2_815n))).not.toBe(tokenFingerprint(token));
  });

  it('depend on the per-process key: the same token fingerprints differently under another key', () => {
    const a = createTokenFingerprinter(Buffer.alloc(32, 1));
    const b = createTokenFingerprinter(Buffer.alloc(32, 2));
    expect(a(token)).toBe(createTokenFingerprinter(Buffer.alloc(32, 1))(token));
    expect(a(token)).not.toBe(b(token));
  });

  it('cannot be reversed by enumerating epochs and revisions, which a plain hash can', () => {
    // The attack a keyed hash defeats: hash every candidate token near the cluster's revision and look
    // the printed fingerprint up. Against a plain SHA-256 (the negative control) it finds the token;
    // without this process's key the attacker can only hash under a key of their own, and finds nothing.
    const plain = (t: FencingToken) => createHash('sha256').update(formatToken(t)).digest('hex').slice(0, 8);
    const enumerate = (fingerprint: (t: FencingToken) => string, printed: string) => {
      for (let revision = 1n; revision <= 5_000n; revision++) {
        if (fingerprint(packToken(1, revision)) === printed) return revision;
      }
      return undefined;
    };
    expect(enumerate(plain, plain(token))).toBe(2_814n);
    expect(enumerate(createTokenFingerprinter(Buffer.alloc(32, 9)), tokenFingerprint(token))).toBeUndefined();
  });

  it('refuses a short key', () => {
    expect(() => createTokenFingerprinter(Buffer.alloc(8))).toThrow(/32 bytes/);
  });
});
