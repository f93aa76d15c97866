// Every `lockstep <command>` that deploy/, docs/ and the README name is a real command (issue 29: the alert
// rules sent the on-call to `lockstep inspect`, which never existed). A mention is the command written as
// code: after a backtick, an opening parenthesis or `npx `; the product's name in prose ("lockstep
// implements ...") is not one. A command with subcommands (admin, audit, class, shards, ...) must be named
// with a real one too.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../command-table.js';
import type { CliIo } from '../cli-io.js';
import { REPO_ROOT } from '../repo-root.js';

const MENTION = /(?:`|\(|npx )lockstep ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(md|ya?ml|json)$/.test(name) ? [path] : [];
  });
}

/** Each mention: where, the command and the word after it. */
export function commandMentions(text: string): { line: number; command: string; next: string | undefined }[] {
  return text.split('\n').flatMap((line, i) => [...line.matchAll(MENTION)].map((m) => ({ line: i + 1, command: m[1] as string, next: m[2] })));
}

async function program(): Promise<Command> {
  const io: CliIo = { out: () => undefined, err: () => undefined };
  const root = new Command('lockstep');
  for (const module of COMMAND_MODULES) (await module.load())(root, io, () => undefined);
  return root;
}

describe('commands named in deploy/, docs/ and the README', () => {
  it('finds mentions as code and leaves the product\'s name in prose alone (and catches a made-up command)', () => {
    expect(commandMentions('lockstep implements `lockstep inspect KEY` (lockstep admin status); npx lockstep serve --dev')).toEqual([
      { line: 1, command: 'inspect', next: undefined },
      { line: 1, command: 'admin', next: 'status' },
      { line: 1, command: 'serve', next: undefined },
    ]);
  });

  it('are real commands, with real subcommands', { timeout: 60_000 }, async () => {
    const root = await program();
    const files = [...filesUnder(join(REPO_ROOT, 'deploy')), ...filesUnder(join(REPO_ROOT, 'docs')), join(REPO_ROOT, 'README.md')];
    const wrong: string[] = [];
    for (const file of files) {
      for (const mention of commandMentions(readFileSync(file, 'utf8'))) {
        const command = root.commands.find((c) => c.name() === mention.command);
        const where = `${relative(REPO_ROOT, file)}:${mention.line}`;
        if (command === undefined) wrong.push(`${where}: lockstep ${mention.command} is not a command`);
        else if (command.commands.length > 0 && mention.next !== undefined && !command.commands.some((c) => c.name() === mention.next)) {
          wrong.push(`${where}: lockstep ${mention.command} has no subcommand ${mention.next}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
