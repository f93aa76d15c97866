// What a user's files hold reaches the terminal escaped (src/terminal-text.ts): a class named with escape
// sequences, a history whose key forges a line, a scenario name typed with a bell.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.js';
import { type Fixtures, fixtures } from './contract-kit.js';

let scratch: Fixtures;
beforeAll(async () => {
  scratch = await fixtures();
});
afterAll(async () => scratch.cleanup());

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('text from files and arguments reaches the terminal escaped', () => {
  it('class check: a name with a colour escape and a bell', async () => {
    const file = await scratch.text('colour.yaml', 'apiVersion: lockstep.dev/v1\nkind: LockClass\nmetadata:\n  namespace: ns\n  name: "a\\e[31mred\\a"\nspec:\n  purpose: correctness\n');
    const { code, out } = await runCli('class', 'check', '--now', '2026-01-01', file);
    expect(code).toBe(1);
    expect(out.join('\n')).not.toMatch(RAW_CONTROL);
    expect(out[0]).toContain('ns/a\\u001b[31mred\\u0007: metadata.name:');
  });

  it('check: a key holding an escape and a line break stays on its lines, escaped', async () => {
    const source = (await readFile('examples/histories/illegal/lock-double-grant.jsonl', 'utf8')).replaceAll('payments/ledger', 'payments/\\u001b[2J\\nforged: ok');
    const file = await scratch.text('forged.jsonl', source);
    const { code, out } = await runCli('check', file, '--model', 'lock');
    expect(code).toBe(1);
    const text = out.join('\n');
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).toContain('payments/\\u001b[2J');
    expect(out.some((line) => line.startsWith('forged: ok'))).toBe(false);
  });

  it('run: a scenario name typed with control characters', async () => {
    const { code, err } = await runCli('run', 'pause\u0007-test\u001b[0m');
    expect(code).toBe(2);
    expect(err.join('\n')).not.toMatch(RAW_CONTROL);
  });
});
