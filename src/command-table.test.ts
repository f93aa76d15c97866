// The command table (src/command-table.ts): each module registers exactly the names it is listed under,
// and a command line loads only the module it needs.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES, modulesFor } from './command-table.js';
import { runCli } from './testing/run-cli.js';

const quiet = { out: () => undefined, err: () => undefined };

describe('the command table', () => {
  it('lists, for each module, exactly the top-level commands it registers', async () => {
    for (const entry of COMMAND_MODULES) {
      const program = new Command('lockstep');
      (await entry.load())(program, quiet, () => undefined);
      expect(program.commands.map((c) => c.name()).sort(), entry.names.join(',')).toEqual([...entry.names].sort());
    }
  });

  it('names each command once', () => {
    const names = COMMAND_MODULES.flatMap((m) => m.names);
    expect(new Set(names).size).toBe(names.length);
  });

  it('loads one module for a command, none for --version, all for help or a misspelt command', () => {
    expect(modulesFor(['class', 'check', 'a.yaml']).map((m) => m.names)).toEqual([['class']]);
    expect(modulesFor(['replay', 'run.json']).map((m) => m.names)).toEqual([['list', 'run', 'replay']]);
    expect(modulesFor(['--version'])).toEqual([]);
    expect(modulesFor(['--help'])).toBe(COMMAND_MODULES);
    expect(modulesFor([])).toBe(COMMAND_MODULES);
    expect(modulesFor(['clas', 'check'])).toBe(COMMAND_MODULES);
  });

  it('still lists every command under --help and suggests one for a typo', async () => {
    const help = await runCli('--help');
    for (const name of COMMAND_MODULES.flatMap((m) => m.names)) expect(help.out.join('\n')).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const typo = await runCli('explor');
    expect(typo.code).toBe(2);
    expect(typo.err.join('\n')).toContain('explore');
  });
});
