import { describe, expect, it } from 'vitest';
import { Fnv1a64, fnv1a64Hex } from './fnv64.js';

describe('FNV-1a 64', () => {
  it('matches the published test vectors', () => {
    expect(fnv1a64Hex('')).toBe('cbf29ce484222325');
    expect(fnv1a64Hex('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64Hex('foobar')).toBe('85944171f73967e8');
  });

  it('hashes strings as UTF-8, like TextEncoder does', () => {
    for (const text of ['é', '€', 'lock 🔒 step', '\u{10FFFF}', 'a\ud800b']) {
      const viaBytes = new Fnv1a64();
      for (const byte of new TextEncoder().encode(text)) viaBytes.updateByte(byte);
      expect(fnv1a64Hex(text)).toBe(viaBytes.hex());
    }
  });

  it('is incremental: feeding in pieces equals feeding at once', () => {
    const pieces = new Fnv1a64();
    pieces.updateString('lock');
    pieces.updateString('step');
    expect(pieces.hex()).toBe(fnv1a64Hex('lockstep'));
    expect(pieces.value()).toBe(BigInt('0x' + fnv1a64Hex('lockstep')));
  });
});
