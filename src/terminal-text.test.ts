import { describe, expect, it } from 'vitest';
import { oneLine, terminalSafe } from './terminal-text.js';

describe('terminalSafe and oneLine', () => {
  it('escape every control character visibly, keeping plain text as it is', () => {
    expect(terminalSafe('plain text, ünïcode, emoji 🔒, tab\tand\nnewline')).toBe('plain text, ünïcode, emoji 🔒, tab\tand\nnewline');
    expect(terminalSafe('ns/a\u001b[31mred\u0007:')).toBe('ns/a\\u001b[31mred\\u0007:');
    expect(terminalSafe('\u0000\u0008\r\u007f\u0085\u009b')).toBe('\\u0000\\u0008\\u000d\\u007f\\u0085\\u009b');
    // Bidirectional overrides and isolates ("Trojan Source") and the Unicode line separators.
    expect(terminalSafe('a\u202eb\u2066c\u2069d\u200fe\u2028f')).toBe('a\\u202eb\\u2066c\\u2069d\\u200fe\\u2028f');
  });

  it('oneLine escapes line breaks and tabs too, so a value cannot forge a line of its own', () => {
    expect(oneLine('name\nfile.yaml:3: ok\tx')).toBe('name\\u000afile.yaml:3: ok\\u0009x');
  });

  it('keeps JSON valid and its value the same', () => {
    const value = { name: 'a\u0085b\u202ec' };
    expect(JSON.parse(terminalSafe(JSON.stringify(value)))).toEqual(value);
  });

  // Issue 34: the audit commands had their own terminalSafe, which escaped line breaks like oneLine (a key
  // read from the log must not forge a table row) but missed U+061C; oneLine does both, and replaces it.
  it('oneLine is what a log value in an audit table needs: a line break and the Arabic letter mark escaped', () => {
    const key = 'payments/a\npayments/b  held by\u061cx';
    expect(oneLine(key)).toBe('payments/a\\u000apayments/b  held by\\u061cx');
    expect(terminalSafe(key)).toContain('\n'); // the whole-output filter keeps line breaks: not for a cell
  });
});
