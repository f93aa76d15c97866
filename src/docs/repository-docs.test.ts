// The project's own docs point only at things a clone of the repository has: every path, link, anchor
// and test name in README.md and docs/*.md exists, nothing names the steering repository (../shared),
// and docs/design.md has one section per decision, ADR-01..24, with the anchor the rest of the project
// links to. A rename elsewhere fails here, naming the doc, the line and what is gone. And design.md says
// what is built (design-status.ts, issue 29): a row that claims anything cites a test that exists, no
// negative claim denies a command the CLI has, and no claim that code has made false comes back.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../command-table.js';
import { anchorsOf, brokenReferences } from './doc-references.js';
import { type DesignProblem, commandDenials, commandLookup, decisionMapRows, deniedCommands, negativeClaims, retiredClaims, statusProblems } from './design-status.js';
import { fileSystemRepo } from './repo-view.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DECISIONS = Array.from({ length: 24 }, (_, i) => String(i + 1).padStart(2, '0'));
/** The section parts every decision has, in this order (docs/design.md, "How to read a section"). */
const PARTS = ['**Question.**', '**Decision.**', '**Cost.**', '**Alternatives that lost.**', '**In lockstep.**'];
/** Where code, messages and examples cite decisions by number. */
const CITING_FOLDERS = ['core', 'sim', 'scenarios', 'src', 'bench', 'viz', 'examples', 'bin'];

const repo = fileSystemRepo(REPO_ROOT);

const docs = ['README.md', 'deploy/README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|mjs|js|json|yaml|jsonl|md)$/.test(entry.name) ? [path] : [];
  });
}

describe('the project docs point only inside the repository', () => {
  it('reads README.md and every docs/*.md, design.md and architecture.md among them', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/design.md', 'docs/architecture.md']));
  });

  it.each(docs)('%s: every cited path, link, anchor and test name exists, and nothing names ../shared', (doc) => {
    const broken = brokenReferences(doc, repo.read(doc), repo).map((b) => `${b.doc}:${b.line}: ${b.reference}: ${b.problem}`);
    expect(broken).toEqual([]);
  });

  it('no source file, message or example points at ../shared (the lint config included)', () => {
    // src/docs/ holds this check, which has to name the string it looks for.
    const sources = [...CITING_FOLDERS.flatMap(filesUnder), 'eslint.config.js'].filter((file) => !file.startsWith('src/docs/'));
    const pointing = sources.filter((file) => repo.read(file).includes('../shared'));
    expect(pointing).toEqual([]);
  });
});

describe('docs/design.md: one section per decision', () => {
  const design = repo.read('docs/design.md');
  const sections = design.split(/^<a id="(adr-\d\d)"><\/a>\n/m).slice(1);
  const byAnchor = new Map<string, string>();
  for (let i = 0; i + 1 < sections.length; i += 2) byAnchor.set(sections[i] ?? '', sections[i + 1] ?? '');

  it('has the anchors adr-01..adr-24, once each and in order', () => {
    expect([...byAnchor.keys()]).toEqual(DECISIONS.map((n) => `adr-${n}`));
    expect(sections.length).toBe(2 * DECISIONS.length);
    const anchors = anchorsOf(design); // what the link check resolves `design.md#adr-NN` against
    expect(DECISIONS.filter((n) => !anchors.has(`adr-${n}`))).toEqual([]);
  });

  it.each(DECISIONS)('ADR-%s: its anchor opens its heading, then the five parts in order', (n) => {
    const section = byAnchor.get(`adr-${n}`) ?? '';
    expect(section.split('\n')[0]).toMatch(new RegExp(`^## ADR-${n} · \\S`));
    const at = PARTS.map((part) => section.indexOf(part));
    expect(at.every((index) => index > 0), `ADR-${n} lacks one of ${PARTS.join(' ')}`).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('every ADR number cited in code, messages, examples and docs is one of the 24', () => {
    const cited = new Set<string>();
    for (const file of [...CITING_FOLDERS.flatMap(filesUnder), ...docs]) {
      for (const match of repo.read(file).matchAll(/\bADR-(\d+)/g)) cited.add(match[1] ?? '');
    }
    expect([...cited].filter((n) => !DECISIONS.includes(n)).sort()).toEqual([]);
    expect(cited.size).toBeGreaterThan(20); // the scan found the citations at all
  });
});

/** Claims design.md and architecture.md made until issue 29, each made false by a file that now exists. */
const RETIRED_CLAIMS = [
  { phrase: 'no gRPC service', evidence: 'src/service/server.ts' },
  { phrase: 'A gRPC implementation is not built', evidence: 'src/client/network-arbiter.ts' },
  { phrase: 'no authenticated identity', evidence: 'src/service/peer-identity.ts' },
  { phrase: 'no operator authentication', evidence: 'core/arbiter/approvals.ts' },
  { phrase: 'no reference fences', evidence: 'src/fences/postgresql.ts' },
  { phrase: 'no real kit', evidence: 'src/pause-test/run-kit.ts' },
  { phrase: 'epochs live on the log they protect', evidence: 'core/arbiter/coord-epochs.ts' },
  { phrase: 'one cluster serves both', evidence: 'src/service/topology-arbiter.ts' },
  { phrase: 'no key-affine router', evidence: 'src/client/network-arbiter.ts' },
  { phrase: 'written three times', evidence: 'core/fence/fence-rule.ts' },
  { phrase: 'no delivery or reload', evidence: 'src/service/policy-reload.ts' },
  { phrase: 'metrics of any kind', evidence: 'src/metrics/signals.ts' },
];

const shown = (problems: readonly DesignProblem[]): string[] => problems.map((p) => `line ${p.line}, ${p.where}: ${p.problem}`);

/** The commands of the modules that register `names`, with their subcommands, as the CLI registers them. */
async function commandTree(names: readonly string[]): Promise<{ name: string; subcommands: string[] }[]> {
  const program = new Command('lockstep');
  const quiet = { out: () => undefined, err: () => undefined };
  // Only the modules named: loading all of them (vite, DuckDB, the simulator) costs seconds.
  for (const entry of COMMAND_MODULES.filter((m) => m.names.some((name) => names.includes(name)))) (await entry.load())(program, quiet, () => undefined);
  return program.commands.flatMap((command) =>
    [command.name(), ...command.aliases()].map((name) => ({ name, subcommands: command.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]) })),
  );
}

describe('docs/design.md says what is built (issue 29)', () => {
  const design = repo.read('docs/design.md');

  it('has one decision-map row per decision, in order', () => {
    expect(decisionMapRows(design).map((row) => row.decision)).toEqual(DECISIONS.map((n) => `ADR-${n}`));
  });

  it('a row that is not "not built" cites, in its section, a test that exists; every row opens with a legend word', () => {
    expect(shown(statusProblems(design, repo))).toEqual([]);
  });

  it('no row, "Not built yet" item or "Not built:" part denies a command the CLI has', async () => {
    const named = deniedCommands(design).map((denied) => denied.words[0] ?? '');
    const exists = commandLookup(await commandTree([...named, 'shards']));
    expect([exists(['shards']), exists(['shards', 'move']), exists(['shards', 'archive'])]).toEqual([true, true, false]); // the lookup sees the CLI
    expect(negativeClaims(design).length).toBeGreaterThan(20); // the scan found the claims at all
    expect(shown(commandDenials(design, exists))).toEqual([]);
  });

  it.each(['docs/design.md', 'docs/architecture.md'])('%s makes none of the claims the code has retired', (doc) => {
    expect(shown(retiredClaims(doc, repo.read(doc), RETIRED_CLAIMS, repo))).toEqual([]);
    expect(RETIRED_CLAIMS.filter((claim) => repo.kind(claim.evidence) === undefined)).toEqual([]); // each guard is armed
  });
});
