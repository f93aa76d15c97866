// `lock --help` and the README say the same about what is printed and how lock exits (issue 29): the token
// is printed only with --json (for scripts that pass it on), `leak` is among the exit-5 refusals, and exit 6
// is the refused handshake. Each check reads both texts, so either drifting alone fails it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-root.js';
import { runCli } from '../testing/run-cli.js';

const flat = (text: string): string => text.replace(/\s+/g, ' ');
const readmeLock = (): string => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  return flat(/### `lockstep lock [^]*?(?=\n### )/.exec(readme)?.[0] ?? '');
};

describe('lockstep lock --help and the README', () => {
  it('both say the token is printed only with --json, and never say it is never printed', async () => {
    const help = flat((await runCli('lock', '--help')).out.join('\n'));
    const readme = readmeLock();
    for (const text of [help, readme]) {
      expect(text).toMatch(/token (itself )?is printed only with `?--json`?/);
      expect(text).not.toMatch(/token is never printed/);
    }
  });

  it('both list leak among the exit-5 refusals and document exit 6', async () => {
    const help = flat((await runCli('lock', '--help')).out.join('\n'));
    const readme = readmeLock();
    for (const text of [help, readme]) {
      expect(/5 refused \(([^)]*)\)/.exec(text)?.[1]).toMatch(/\bleak\b/);
      expect(text).toMatch(/6 not authenticated/);
    }
  });

  it('both say a grant from memory (ADR-04) gives the command LOCKSTEP_UNPROTECTED=1 and token 0', async () => {
    const help = flat((await runCli('lock', '--help')).out.join('\n'));
    const readme = readmeLock();
    for (const text of [help, readme]) {
      expect(text).toMatch(/onQuorumLoss: open/);
      expect(text).toMatch(/`?LOCKSTEP_UNPROTECTED=1`? \(never otherwise/);
      expect(text).toMatch(/token is (then )?0, which every fence refuses/);
    }
  });
});
