// The one terminal-safe formatter (issue 17): text that reaches a terminal has every control character
// shown as a visible escape, so a class name, a history line or a file's bytes cannot move the cursor,
// recolour the screen, ring the bell, retitle the window or reorder what follows (bidirectional
// overrides, the "Trojan Source" characters). The CLI passes everything it prints through `terminalSafe`
// (src/cli.ts wraps the CliIo), keeping only its own line breaks and tabs; a user-supplied string set
// into one line of a message goes through `oneLine` first, so it cannot forge a line of its own.
// Escapes are JSON's `\uXXXX`: inside a JSON string (`--json` output) they denote the same character.

// C0 controls but tab and line feed, DEL, C1 controls, the Arabic letter mark, LRM/RLM, the bidi embeddings
// and overrides (U+202A-202E), the line and paragraph separators, and the bidi isolates (U+2066-2069).
// Matching control characters is the point here, so the lint rule against them in a pattern is off for these two.
// eslint-disable-next-line no-control-regex
const UNSAFE_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_A_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text for a terminal: control characters escaped, line breaks and tabs kept. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_KEEPING_LINES, escape);
}

/** A user-supplied string for one line of a message: line breaks and tabs escaped too. */
export function oneLine(text: string): string {
  return text.replace(UNSAFE_IN_A_LINE, escape);
}
