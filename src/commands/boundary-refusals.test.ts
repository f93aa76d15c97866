// Issue 34: every command reports bad input (and every other refusal) by throwing the boundary's BadInput
// or Refusal (src/cli-errors.ts); src/cli.ts prints `lockstep CMD: message` once, for all of them. This
// walks the command table, reads each command module and the src/commands files it imports, and fails on
// one that prints its own refusal line, returns the bad-input exit code or keeps a local `fail` helper.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../command-table.js';

const SRC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

const RULES: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'returns the bad-input exit code itself', pattern: /\bExitCode\.badInput\b/ },
  { name: 'keeps a local refusal helper', pattern: /\bconst (?:fail|refuse)\s*=/ },
  {
    name: 'prints its own `lockstep CMD:` line and returns a refusal exit code',
    // The line, then (at most one statement between, such as an await that closes something) a return of
    // any exit code but ok: ExitCode.refused, a named code such as INTERRUPTED_EXIT_CODE.
    pattern: /io\.err\((?:oneLine\()?[`'"]lockstep [a-z][a-z -]*:[^\n]*\n(?:[^\n]*;\n)?\s*return (?!ExitCode\.ok\b)(?:ExitCode\.\w+|[A-Z][A-Z_]+)\s*;/,
  },
];

/** The rules `source` breaks, by name: none for a command that leaves its refusals to the boundary. */
export function ownRefusals(source: string): string[] {
  return RULES.filter((rule) => rule.pattern.test(source)).map((rule) => rule.name);
}

/** The files of src/commands/ a command module loads: named in the table's load() (as written, or as vite rewrote it), then their relative imports, lazy ones too. */
function commandFiles(): string[] {
  const seen = new Set<string>();
  const queue = COMMAND_MODULES.flatMap((m) => [...m.load.toString().matchAll(/(?:\.\/|\/src\/)(commands\/[\w-]+)\.[jt]s["']/g)].map((match) => join(SRC_DIR, `${match[1]}.ts`)));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    // Static imports and lazy ones (serve.ts loads serve-dev.ts only for --dev).
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from |import\()'\.\/([\w-]+)\.js'/g)) queue.push(join(dirname(file), `${match[1]}.ts`));
  }
  return [...seen].sort();
}

describe('the CLI error boundary is the only place that prints a refusal', () => {
  const files = commandFiles();

  it('finds every module of the command table, and the files they import', () => {
    expect(files.length).toBeGreaterThan(COMMAND_MODULES.length);
    for (const name of ['lock', 'serve', 'serve-dev', 'serve-topology', 'shards-move', 'explore-merge']) expect(files).toContain(join(SRC_DIR, 'commands', `${name}.ts`));
  });

  it.each(files.map((f) => [f.slice(SRC_DIR.length + 1)]))('%s throws BadInput or Refusal instead of printing its own refusal', (file) => {
    expect(ownRefusals(readFileSync(join(SRC_DIR, file), 'utf8'))).toEqual([]);
  });

  it('flags a command source that prints its own refusal (negative control)', () => {
    const printed = ["  if (members !== 3) {", "    io.err(`lockstep demo: --members ${members} must be 3`);", '    return ExitCode.badInput;', '  }'].join('\n');
    expect(ownRefusals(printed)).toEqual(['returns the bad-input exit code itself', 'prints its own `lockstep CMD:` line and returns a refusal exit code']);
    const refused = ["    io.err(oneLine(`lockstep serve: refused: ${why}`));", '    await close();', '    return ExitCode.refused;'].join('\n');
    expect(ownRefusals(refused)).toEqual(['prints its own `lockstep CMD:` line and returns a refusal exit code']);
    expect(ownRefusals("  const fail = (message: string): number => {\n")).toEqual(['keeps a local refusal helper']);
  });

  it('leaves progress lines and thrown refusals alone', () => {
    const fine = ["    io.err(`lockstep serve: stopped`);", '    return ExitCode.ok;', "  if (members !== 3) throw new BadInput(`--members ${members} must be 3`);"].join('\n');
    expect(ownRefusals(fine)).toEqual([]);
  });
});
