import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointName, keyCharacterClass, keyCharacterProblem, showKeyText } from './key-characters.js';

describe('the code points a lock key may not contain (issue 18, UTS #39 / UAX #31)', () => {
  it.each([
    ['orders/\u202Eabc', 'U+202E RIGHT-TO-LEFT OVERRIDE at position 7 is a bidirectional control', 'bidi-control'],
    ['orders/a\u2066b', 'U+2066 LEFT-TO-RIGHT ISOLATE at position 8 is a bidirectional control', 'bidi-control'],
    ['orders/a\u200Fb', 'U+200F RIGHT-TO-LEFT MARK at position 8 is a bidirectional control', 'bidi-control'],
    ['orders/a\u200Bb', 'U+200B ZERO WIDTH SPACE at position 8 is invisible', 'invisible'],
    ['orders/a\u200Db', 'U+200D ZERO WIDTH JOINER at position 8 is invisible', 'invisible'],
    ['orders/a\u00ADb', 'U+00AD SOFT HYPHEN at position 8 is invisible', 'invisible'],
    ['orders/a\uFEFFb', 'U+FEFF ZERO WIDTH NO-BREAK SPACE at position 8 is invisible', 'invisible'],
    ['orders/a\uFE0Fb', 'U+FE0F VARIATION SELECTOR-16 at position 8 is invisible', 'invisible'],
    ['orders/a\u3164b', 'U+3164 HANGUL FILLER at position 8 is invisible', 'invisible'],
    ['orders/a\u2028b', 'U+2028 LINE SEPARATOR at position 8 is a line or paragraph separator', 'line-separator'],
    ['orders/a\u2029b', 'U+2029 PARAGRAPH SEPARATOR at position 8 is a line or paragraph separator', 'line-separator'],
    ['orders/a\u{E0061}b', 'U+E0061 TAG LATIN SMALL LETTER A at position 8 is a tag character', 'tag'],
    ['orders/a\u{E0001}b', 'U+E0001 LANGUAGE TAG at position 8 is a tag character', 'tag'],
    ['orders/a\uD800b', 'U+D800 at position 8 is an unpaired surrogate', 'unpaired-surrogate'],
    ['orders/a\uDC00', 'U+DC00 at position 8 is an unpaired surrogate', 'unpaired-surrogate'],
    ['orders/a\uFFFEb', 'U+FFFE at position 8 is a Unicode noncharacter', 'noncharacter'],
    ['orders/a\u00A0b', 'U+00A0 NO-BREAK SPACE at position 8 is a space other than U+0020 SPACE', 'space'],
    ['orders/a\u3000b', 'U+3000 IDEOGRAPHIC SPACE at position 8 is a space other than U+0020 SPACE', 'space'],
    ['orders/a\u001Bb', 'U+001B ESCAPE at position 8 is a control character', 'control'],
    ['orders/a\u0085b', 'U+0085 NEXT LINE at position 8 is a control character', 'control'],
  ])('refuses %j: %s', (text, message, kind) => {
    const problem = keyCharacterProblem(text);
    expect(problem?.message.startsWith(message), problem?.message).toBe(true);
    expect([problem?.class, problem?.fix]).toEqual([kind, 'remove it']);
  });

  it('passes printable ASCII on its fast path exactly as the per-character classes judge it', () => {
    // The fast path (issue 16) claims no code point from U+0020 to U+007E is refused: check every one.
    for (let cp = 0x20; cp <= 0x7e; cp += 1) expect(keyCharacterClass(cp), `U+${cp.toString(16)}`).toBeUndefined();
    expect(keyCharacterProblem('payments/ledger-01 a~z')).toBeUndefined();
    // Just outside the range the slow path still refuses: DELETE, a tab, and NO-BREAK SPACE.
    expect(keyCharacterProblem('a\u007fb')?.class).toBe('control');
    expect(keyCharacterProblem('a\tb')?.class).toBe('control');
    expect(keyCharacterProblem('a\u00a0b')?.class).toBe('space');
  });

  it('counts the position in code points, so a character outside the BMP counts once', () => {
    expect(keyCharacterProblem('ns/\u{1F512}\u200B')?.position).toBe(4);
  });

  it('refuses a key that is not in NFC, naming what NFC makes of it', () => {
    const problem = keyCharacterProblem('ns/cafe\u0301');
    expect(problem?.class).toBe('not-nfc');
    expect(problem?.message).toMatch(/^is not in Unicode Normalization Form C: at position 6, U\+0065 U\+0301 is U\+00E9 in NFC/);
    expect(problem?.fix).toBe('give it in NFC, "ns/caf\u00E9" (text.normalize(\'NFC\'))');
  });

  it.each([
    'payments/invoice-42',
    'payments/caf\u00E9',
    'payments/m\u00FCnchen/\u6771\u4EAC',
    'payments/\u{1F512}',
    'payments/a b', // U+0020 itself stays allowed, as before
    'payments/\u05E9\u05DC\u05D5\u05DD', // right-to-left letters are letters, not controls
  ])('accepts the visible key %j', (text) => {
    expect(keyCharacterProblem(text)).toBeUndefined();
  });

  it('classifies every code point of the bidi-control set, and leaves letters alone', () => {
    for (const cp of [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) expect(keyCharacterClass(cp), codePointName(cp)).toBe('bidi-control');
    for (const cp of [0x41, 0x7a, 0xe9, 0x5d0, 0x4e2d, 0x1f512]) expect(keyCharacterClass(cp)).toBeUndefined();
  });

  it('quotes a key for a message with every refused code point escaped, so the message cannot be reordered or hidden by it', () => {
    expect(showKeyText('ns/a\u202Eb"\\')).toBe('"ns/a\\u202eb\\"\\\\"');
    expect(showKeyText('ns/\u{E0061}\uD800')).toBe('"ns/\\u{E0061}\\ud800"');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '\uD800', '\uDFFF'), (text, lone) => {
        const shown = showKeyText(`${text}${lone}`);
        expect(keyCharacterProblem(shown.normalize('NFC'))).toBeUndefined();
        // By code point: U+10000's UTF-16 pair starts with \uD800 too, and is no lone surrogate.
        expect([...shown].includes(lone === '' ? '\u202E' : lone)).toBe(false);
      }),
    );
  });
});
