// What the project's Markdown docs point at, and which of those pointers are broken. The README and
// docs/ cite repository paths, link to each other (with anchors), and docs/design.md names the tests
// that hold each decision; a rename elsewhere must fail a test rather than leave a dead pointer. Pure:
// the repository is read through `RepoView`, so the rules can be tested on made-up files.
import { posix } from 'node:path';

/** The repository as the checks see it; paths are repository-relative, with `/`. */
export interface RepoView {
  /** 'file', 'dir', or undefined when nothing is there. */
  kind(path: string): 'file' | 'dir' | undefined;
  read(path: string): string;
  list(dir: string): readonly string[];
}

export interface BrokenReference {
  readonly doc: string;
  readonly line: number;
  readonly reference: string;
  readonly problem: string;
}

/** Top-level folders whose paths the docs cite. Generated output (dist/, test-artifacts/) is not checked. */
const SOURCE_FOLDERS = ['core', 'sim', 'scenarios', 'src', 'bench', 'viz', 'examples', 'docs', 'bin', 'proto', 'deploy'];
const PATH_PATTERN = new RegExp(`(?<![\\w./-])((?:${SOURCE_FOLDERS.join('|')})/[\\w./*-]*)(#[\\w-]+)?`, 'g');
const MARKDOWN_FILE_PATTERN = /(?<![\w./:-])([\w./-]*[\w-]\.md)(#[\w-]+)?(?![\w-])/g;
const LINK_PATTERN = /\[[^\]]*\]\(([^)\s]+)\)/g;
const TEST_CITATION_PATTERN = /`([^`\s]+\.test\.ts)`((?:\s*,?\s*"[^"]+")+)/g;
const TEST_TITLE_PATTERN = /\b(?:describe|it|test)(?:\.each(?:<[^>]*>)?\([\s\S]*?\))?\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;

interface DocLine {
  readonly number: number;
  readonly text: string;
  readonly fenced: boolean;
}

function docLines(markdown: string): DocLine[] {
  let fenced = false;
  return markdown.split('\n').map((text, index) => {
    const fence = /^\s*(```|~~~)/.test(text);
    const line = { number: index + 1, text, fenced: fenced || fence };
    if (fence) fenced = !fenced;
    return line;
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats get -1, -2, ...) and explicit `<a id>`/`<a name>`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of docLines(markdown)) {
    if (line.fenced) continue;
    for (const match of line.text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '');
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line.text);
    if (heading === null) continue;
    const slug = headingSlug((heading[1] ?? '').replace(/`/g, ''));
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}

/** The titles of a test file's describe/it/test calls, with escapes undone. */
export function testTitles(source: string): string[] {
  return [...source.matchAll(TEST_TITLE_PATTERN)].map((m) => (m[2] ?? '').replace(/\\(.)/g, '$1'));
}

function withoutLinkTexts(text: string): string {
  return text.replace(/\[([^\]]*)\]\(/g, (_whole, inner: string) => `[${' '.repeat(inner.length)}](`);
}

function withoutInlineCode(text: string): string {
  return text.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
}

/** A test cited as the docs cite them, on one line: `` `path.test.ts` "part of a test name", "another" ``. */
export interface TestCitation {
  readonly file: string;
  readonly names: readonly string[];
}

/** The test citations in a piece of Markdown; each must sit on one line, name and all. */
export function testCitations(text: string): TestCitation[] {
  return [...text.matchAll(TEST_CITATION_PATTERN)].map((match) => ({
    file: match[1] ?? '',
    names: [...(match[2] ?? '').matchAll(/"([^"]+)"/g)].map((quoted) => quoted[1] ?? ''),
  }));
}

/** The cited names that no describe, it or test title of the (existing) test file contains. */
export function missingTestNames(file: string, names: readonly string[], repo: RepoView): string[] {
  const titles = testTitles(repo.read(file));
  return names.filter((name) => !titles.some((title) => title.includes(name)));
}

/** Checks one document's links, cited paths, Markdown file names and test names against the repository. */
export function brokenReferences(doc: string, markdown: string, repo: RepoView): BrokenReference[] {
  const broken: BrokenReference[] = [];
  const docDir = posix.dirname(doc);
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string): Set<string> => {
    let anchors = anchorCache.get(file);
    if (anchors === undefined) anchorCache.set(file, (anchors = anchorsOf(file === doc ? markdown : repo.read(file))));
    return anchors;
  };
  for (const line of docLines(markdown)) {
    const reported = new Set<string>();
    const report = (reference: string, problem: string): void => {
      if (reported.has(problem)) return; // a link and the path in it name the same file: one report
      reported.add(problem);
      broken.push({ doc, line: line.number, reference, problem });
    };
    const checkTarget = (reference: string, target: string, fragment: string | undefined): void => {
      const file = target === '' ? doc : posix.normalize(target);
      if (file.startsWith('../') || file === '..') return report(reference, 'points outside the repository, which a clone does not have');
      const kind = file === doc ? 'file' : repo.kind(file); // the document itself, read from `markdown`
      if (kind === undefined) return report(reference, `${file} does not exist`);
      if (fragment !== undefined && kind === 'file' && file.endsWith('.md') && !anchorsIn(file).has(fragment)) {
        report(reference, `${file} has no anchor #${fragment}`);
      }
    };
    if (line.text.includes('../shared')) report('../shared', 'names the steering repository, which a clone does not have; link into docs/ instead');
    if (!line.fenced) {
      for (const match of withoutInlineCode(line.text).matchAll(LINK_PATTERN)) {
        const link = match[1] ?? '';
        if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto:: not the repository's
        const [target = '', fragment] = link.split('#');
        checkTarget(link, target === '' ? '' : posix.join(docDir, target), fragment);
      }
    }
    for (const match of line.text.matchAll(PATH_PATTERN)) {
      const path = (match[1] ?? '').replace(/\.+$/, '');
      if (path.includes('*')) checkGlob(path, repo, report);
      else checkTarget(path, path, match[2]?.slice(1));
    }
    // A link's text may show a bare name (`[design.md](docs/design.md)`); its target is what counts.
    for (const match of withoutLinkTexts(line.text).matchAll(MARKDOWN_FILE_PATTERN)) {
      const name = match[1] ?? '';
      if (SOURCE_FOLDERS.some((folder) => name.startsWith(`${folder}/`))) continue; // checked as a path
      const besideDoc = posix.join(docDir, name);
      checkTarget(name, repo.kind(besideDoc) === undefined ? posix.normalize(name) : besideDoc, match[2]?.slice(1));
    }
    for (const { file, names } of testCitations(line.text)) {
      if (repo.kind(file) !== 'file') continue; // reported above as a path
      for (const name of missingTestNames(file, names, repo)) report(`${file} "${name}"`, `no describe, it or test title in ${file} contains this text`);
    }
  }
  return broken;
}

/** `examples/classes/*.yaml`: the folder exists and the pattern (in its last segment) matches something. */
function checkGlob(path: string, repo: RepoView, report: (reference: string, problem: string) => void): void {
  const dir = posix.dirname(path);
  const pattern = posix.basename(path);
  if (dir.includes('*') || repo.kind(dir) !== 'dir') return report(path, `${dir} is not a folder of the repository`);
  const matcher = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  if (!repo.list(dir).some((entry) => matcher.test(entry))) report(path, `nothing in ${dir} matches ${pattern}`);
}
