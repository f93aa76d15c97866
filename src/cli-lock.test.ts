// src/cli-lock.ts: the bundled entry of `lockstep lock` is the same program and error boundary as src/cli.ts,
// with the lock command alone.
import { describe, expect, it } from 'vitest';
import { EXIT_CODES_HELP } from './cli.js';
import { main } from './cli-lock.js';

function capture(): { io: { out: (text: string) => void; err: (text: string) => void }; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { out: (text) => (out += text), err: (text) => (err += text) }, out: () => out, err: () => err };
}

describe('the lock entry', () => {
  it('answers lock --help with the exit codes, as the full CLI does', async () => {
    const seen = capture();
    expect(await main(['lock', '--help'], seen.io)).toBe(0);
    expect(seen.out()).toContain('Hold a lock while a command runs');
    expect(seen.out()).toContain(EXIT_CODES_HELP.trim().split('\n')[0]);
  });

  it('refuses bad input with exit 2 through the boundary, and knows no other command', async () => {
    const bad = capture();
    expect(await main(['lock', '--endpoints', '127.0.0.1:2379', '--identity', 'spiffe://x', 'payments/x', '--', 'true'], bad.io)).toBe(2);
    expect(bad.err()).toContain('--class is required with --endpoints');
    const other = capture();
    expect(await main(['init', '--endpoints', '127.0.0.1:2379'], other.io)).toBe(2);
    expect(other.err()).toContain("unknown command 'init'");
  });
});
