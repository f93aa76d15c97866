// Which code points a lock key may not contain (issue 18): the ones that make two keys look alike while
// naming different locks, or make a key change how a terminal, a log line or the page shows it. Every
// reader of a key or a key prefix calls `keyCharacterProblem` (core/lock-key.ts parseLockKey, the
// LockGrant prefix rule in core/classes/grant-rules.ts), so there is one rule.
//
// The classes follow Unicode's identifier-security guidance: UTS #39 (Unicode Security Mechanisms) §3.1
// gives Default_Ignorable_Code_Point, format (Cf) and control characters Identifier_Status=Restricted,
// UAX #31 (Identifiers) §2.3 and §4.1 keep Default_Ignorable and Bidi_Control code points out of an
// identifier's visible form, and UTS #55 (Source Code Handling, the "Trojan Source" attacks) shows what
// bidi controls do to displayed text. Also refused: line and paragraph separators (a key on two lines),
// tag characters (invisible copies of ASCII), unpaired surrogates (not characters at all, and changed
// into U+FFFD by any UTF-8 encoder, so the key in etcd would not be the key the caller sent),
// noncharacters, and spaces other than U+0020 (they look like a space and are not one).
//
// Refused, not normalised: deleting an invisible character would make `a\u200Bb` and `ab` one lock
// without the caller knowing, and the key in the log, the audit trail (ADR-21) and the caller's own
// logs would differ. A refusal names the code point, so the caller fixes the key at its source. For the
// same reason a key must already be in Unicode Normalization Form C (UAX #15; UAX #31 §5 asks identifiers
// to be compared in a normalization form): `e` + U+0301 and U+00E9 look the same, so only one may be a key.
//
// Not covered: confusable letters of different scripts (Latin `a` and Cyrillic `а`, UTS #39 §4); keys
// are namespaced by a lowercase ASCII label, and the path is the resource owner's own name.

/** Why a code point may not be in a key. */
export type KeyCharacterClass = 'control' | 'bidi-control' | 'line-separator' | 'tag' | 'invisible' | 'unpaired-surrogate' | 'noncharacter' | 'space';

export interface KeyCharacterProblem {
  readonly codePoint: number;
  /** Counted in code points from 0, as a person counts characters (not UTF-16 units). */
  readonly position: number;
  readonly class: KeyCharacterClass | 'not-nfc';
  /** `U+202E RIGHT-TO-LEFT OVERRIDE at position 7 is a bidirectional control: ...` */
  readonly message: string;
  /** What to do: `remove it`, or give the key in NFC. */
  readonly fix: string;
}

const WHY: Readonly<Record<KeyCharacterClass, string>> = {
  control: 'is a control character, invisible in logs and terminals',
  'bidi-control': 'is a bidirectional control: it reorders how a terminal or a page shows the rest of the key',
  'line-separator': 'is a line or paragraph separator: it breaks the key across lines',
  tag: 'is a tag character: an invisible copy of an ASCII character',
  invisible: 'is invisible (a zero-width, format or filler character): two keys that differ only by it look the same',
  'unpaired-surrogate': 'is an unpaired surrogate: half of a UTF-16 pair, not a character (UTF-8 cannot carry it)',
  noncharacter: 'is a Unicode noncharacter, which tools may drop or replace',
  space: 'is a space other than U+0020 SPACE: it looks like a space and is not one',
};

// The order matters only for the message: the most specific class first.
const CLASSES: ReadonlyArray<readonly [KeyCharacterClass, (cp: number) => boolean]> = [
  ['unpaired-surrogate', (cp) => cp >= 0xd800 && cp <= 0xdfff],
  ['control', (cp) => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)],
  ['bidi-control', (cp) => /\p{Bidi_Control}/u.test(String.fromCodePoint(cp))],
  ['line-separator', (cp) => /[\p{Zl}\p{Zp}]/u.test(String.fromCodePoint(cp))],
  ['tag', (cp) => cp >= 0xe0000 && cp <= 0xe007f],
  ['invisible', (cp) => /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u.test(String.fromCodePoint(cp))],
  ['noncharacter', (cp) => /\p{Noncharacter_Code_Point}/u.test(String.fromCodePoint(cp))],
  ['space', (cp) => cp !== 0x20 && /\p{White_Space}/u.test(String.fromCodePoint(cp))],
];

/** The class a code point is refused for, or undefined when a key may contain it. */
export function keyCharacterClass(codePoint: number): KeyCharacterClass | undefined {
  return CLASSES.find(([, matches]) => matches(codePoint))?.[0];
}

/**
 * Printable ASCII, U+0020 to U+007E: no code point in it falls in a refused class (U+0020 is the one
 * space allowed), and ASCII text is always in NFC. Nearly every key is only this, and every grant parses
 * its key (issue 16: the per-character class tests were 5% of the simulator's time).
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The first code point of `text` a key may not contain, or a key not in NFC; undefined when the text is fine. */
export function keyCharacterProblem(text: string): KeyCharacterProblem | undefined {
  if (PRINTABLE_ASCII.test(text)) return undefined;
  let position = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    const found = keyCharacterClass(codePoint);
    if (found !== undefined) return { codePoint, position, class: found, message: `${codePointName(codePoint)} at position ${position} ${WHY[found]}`, fix: 'remove it' };
    position += 1;
  }
  const normal = text.normalize('NFC');
  if (normal === text) return undefined;
  // The run of code points NFC changes: from the first that differs to the common tail.
  const given = [...text];
  const nfc = [...normal];
  const at = given.findIndex((char, i) => char !== nfc[i]);
  let tail = 0;
  while (tail < given.length - at && tail < nfc.length - at && given[given.length - 1 - tail] === nfc[nfc.length - 1 - tail]) tail += 1;
  const names = (chars: readonly string[]): string => chars.map((c) => codePointName(c.codePointAt(0) ?? 0)).join(' ');
  return {
    codePoint: given[at]?.codePointAt(0) ?? 0,
    position: at,
    class: 'not-nfc',
    message: `is not in Unicode Normalization Form C: at position ${at}, ${names(given.slice(at, given.length - tail))} is ${names(nfc.slice(at, nfc.length - tail))} in NFC, and the two look the same but would name different locks`,
    fix: `give it in NFC, ${showKeyText(normal)} (text.normalize('NFC'))`,
  };
}

/** A key quoted for a message: JSON-quoted, with every code point a key may not contain escaped, so the message itself shows it and cannot be reordered by it. */
export function showKeyText(text: string): string {
  let shown = '';
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    if (keyCharacterClass(codePoint) === undefined) shown += char === '"' || char === '\\' ? `\\${char}` : char;
    else shown += codePoint <= 0xffff ? `\\u${hex(codePoint, 4).toLowerCase()}` : `\\u{${hex(codePoint, 5)}}`;
  }
  return `"${shown}"`;
}

/** `U+202E RIGHT-TO-LEFT OVERRIDE`; the U+ form alone for a code point without a name here. */
export function codePointName(codePoint: number): string {
  const name = NAMES.get(codePoint) ?? derivedName(codePoint);
  return `U+${hex(codePoint, 4)}${name === undefined ? '' : ` ${name}`}`;
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, '0');
}

/** Names that follow a pattern in the Unicode character database: variation selectors, tag letters and digits. */
function derivedName(cp: number): string | undefined {
  if (cp >= 0xfe00 && cp <= 0xfe0f) return `VARIATION SELECTOR-${cp - 0xfe00 + 1}`;
  if (cp >= 0xe0100 && cp <= 0xe01ef) return `VARIATION SELECTOR-${cp - 0xe0100 + 17}`;
  const ascii = cp - 0xe0000;
  if (ascii >= 0x41 && ascii <= 0x5a) return `TAG LATIN CAPITAL LETTER ${String.fromCharCode(ascii)}`;
  if (ascii >= 0x61 && ascii <= 0x7a) return `TAG LATIN SMALL LETTER ${String.fromCharCode(ascii - 0x20)}`;
  if (ascii >= 0x30 && ascii <= 0x39) return `TAG DIGIT ${DIGITS[ascii - 0x30] ?? ''}`;
  return undefined;
}

const DIGITS = ['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE'];

// The names (or, for controls, the Unicode name aliases) of the refused code points a key is most likely
// to carry: pasted from a document, a chat message or an attack. Others are shown by number.
const NAMES: ReadonlyMap<number, string> = new Map([
  [0x00, 'NULL'], [0x07, 'BELL'], [0x08, 'BACKSPACE'], [0x09, 'CHARACTER TABULATION'], [0x0a, 'LINE FEED'], [0x0b, 'LINE TABULATION'],
  [0x0c, 'FORM FEED'], [0x0d, 'CARRIAGE RETURN'], [0x1b, 'ESCAPE'], [0x7f, 'DELETE'], [0x85, 'NEXT LINE'], [0x9b, 'CONTROL SEQUENCE INTRODUCER'],
  [0xa0, 'NO-BREAK SPACE'], [0xad, 'SOFT HYPHEN'], [0x34f, 'COMBINING GRAPHEME JOINER'], [0x61c, 'ARABIC LETTER MARK'],
  [0x115f, 'HANGUL CHOSEONG FILLER'], [0x1160, 'HANGUL JUNGSEONG FILLER'], [0x1680, 'OGHAM SPACE MARK'], [0x180e, 'MONGOLIAN VOWEL SEPARATOR'],
  [0x2000, 'EN QUAD'], [0x2001, 'EM QUAD'], [0x2002, 'EN SPACE'], [0x2003, 'EM SPACE'], [0x2004, 'THREE-PER-EM SPACE'], [0x2005, 'FOUR-PER-EM SPACE'],
  [0x2006, 'SIX-PER-EM SPACE'], [0x2007, 'FIGURE SPACE'], [0x2008, 'PUNCTUATION SPACE'], [0x2009, 'THIN SPACE'], [0x200a, 'HAIR SPACE'],
  [0x200b, 'ZERO WIDTH SPACE'], [0x200c, 'ZERO WIDTH NON-JOINER'], [0x200d, 'ZERO WIDTH JOINER'], [0x200e, 'LEFT-TO-RIGHT MARK'], [0x200f, 'RIGHT-TO-LEFT MARK'],
  [0x2028, 'LINE SEPARATOR'], [0x2029, 'PARAGRAPH SEPARATOR'],
  [0x202a, 'LEFT-TO-RIGHT EMBEDDING'], [0x202b, 'RIGHT-TO-LEFT EMBEDDING'], [0x202c, 'POP DIRECTIONAL FORMATTING'], [0x202d, 'LEFT-TO-RIGHT OVERRIDE'], [0x202e, 'RIGHT-TO-LEFT OVERRIDE'],
  [0x202f, 'NARROW NO-BREAK SPACE'], [0x205f, 'MEDIUM MATHEMATICAL SPACE'], [0x2060, 'WORD JOINER'], [0x2061, 'FUNCTION APPLICATION'], [0x2062, 'INVISIBLE TIMES'],
  [0x2063, 'INVISIBLE SEPARATOR'], [0x2064, 'INVISIBLE PLUS'],
  [0x2066, 'LEFT-TO-RIGHT ISOLATE'], [0x2067, 'RIGHT-TO-LEFT ISOLATE'], [0x2068, 'FIRST STRONG ISOLATE'], [0x2069, 'POP DIRECTIONAL ISOLATE'],
  [0x3000, 'IDEOGRAPHIC SPACE'], [0x3164, 'HANGUL FILLER'], [0xfeff, 'ZERO WIDTH NO-BREAK SPACE'], [0xffa0, 'HALFWIDTH HANGUL FILLER'],
  [0xe0001, 'LANGUAGE TAG'], [0xe0020, 'TAG SPACE'], [0xe007f, 'CANCEL TAG'],
]);
