// The project's own docs point only at things a clone of the repository has: every path, link, anchor
// and test name in README.md and docs/*.md exists, nothing names the steering repository (../shared),
// and docs/design.md has one section per decision, ADR-01..24, with the anchor the rest of the project
// links to. A rename elsewhere fails here, naming the doc, the line and what is gone.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type RepoView, anchorsOf, brokenReferences } from './doc-references.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DECISIONS = Array.from({ length: 24 }, (_, i) => String(i + 1).padStart(2, '0'));
/** The section parts every decision has, in this order (docs/design.md, "How to read a section"). */
const PARTS = ['**Question.**', '**Decision.**', '**Cost.**', '**Alternatives that lost.**', '**In lockstep.**'];
/** Where code, messages and examples cite decisions by number. */
const CITING_FOLDERS = ['core', 'sim', 'scenarios', 'src', 'bench', 'viz', 'examples', 'bin'];

const repo: RepoView = {
  kind: (path) => {
    try {
      return statSync(join(REPO_ROOT, path)).isDirectory() ? 'dir' : 'file';
    } catch {
      return undefined;
    }
  },
  read: (path) => readFileSync(join(REPO_ROOT, path), 'utf8'),
  list: (dir) => readdirSync(join(REPO_ROOT, dir)),
};

const docs = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

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
