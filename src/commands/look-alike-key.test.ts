// Issue 18, item 4, end to end: a command that takes a lock key refuses a look-alike one before it
// touches etcd (exit 2), naming the code point, and its stderr carries the key escaped, never the raw
// bidi control that would reorder the terminal line. The rule itself is core/key-characters.ts.
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';

describe('lockstep lock and a look-alike key', () => {
  it('exits 2 naming U+202E, and prints the key escaped', async () => {
    // 127.0.0.1:9 (discard) is never contacted: the key is refused first.
    const run = await runCli('lock', '--endpoints', '127.0.0.1:9', '--class', 'examples/classes/ledger-writes.yaml', '--identity', 'spiffe://example.org/ledger', 'payments/\u202E1-regdel', '--', 'true');
    expect(run.code).toBe(2);
    const stderr = run.err.join('\n');
    expect(stderr).toContain('key "payments/\\u202e1-regdel": U+202E RIGHT-TO-LEFT OVERRIDE at position 9 is a bidirectional control');
    expect(stderr).not.toContain('\u202E');
  });
});
