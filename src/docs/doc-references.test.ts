import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenReferences, headingSlug, testTitles } from './doc-references.js';
import { madeUpRepo } from './repo-view.js';

const REPO = madeUpRepo({
  'README.md': '# lockstep\n',
  'docs/design.md': '# Design\n\n<a id="adr-12"></a>\n## ADR-12 · A holder in the dark\n\n## Overview\n\n## Overview\n',
  'docs/lock-classes.md': '# Classes\n',
  'core/token.ts': '',
  'core/token.test.ts': "describe('fencing token (ADR-02)', () => {\n  it('orders strictly by (epoch, revision)', () => {});\n  it.each<string>(['a', 'b'])('refuses %s, the holder\\'s own', () => {});\n});\n",
  'examples/classes/ledger.yaml': '',
});

const problemsOf = (doc: string, markdown: string) => brokenReferences(doc, markdown, REPO).map((b) => `${b.line}: ${b.reference}: ${b.problem}`);

describe('headingSlug and anchorsOf', () => {
  it('slugs headings as GitHub does: lower case, punctuation dropped, spaces to hyphens', () => {
    expect(headingSlug('The ports')).toBe('the-ports');
    expect(headingSlug('sim/: the simulated world')).toBe('sim-the-simulated-world');
    expect(headingSlug('ADR-12 · A holder in the dark')).toBe('adr-12--a-holder-in-the-dark');
  });

  it('offers explicit ids, heading slugs, and -1 for a repeated heading; nothing inside code fences', () => {
    const anchors = anchorsOf('<a id="adr-01"></a>\n## Overview\n## Overview\n```\n## Not a heading\n```\n');
    expect([...anchors].sort()).toEqual(['adr-01', 'overview', 'overview-1']);
  });
});

describe('testTitles', () => {
  it('reads describe, it and it.each titles, undoing escapes', () => {
    expect(testTitles(REPO.read('core/token.test.ts'))).toEqual(['fencing token (ADR-02)', 'orders strictly by (epoch, revision)', "refuses %s, the holder's own"]);
  });
});

describe('brokenReferences', () => {
  it('passes paths, links, anchors, Markdown names and test names that exist', () => {
    const doc = [
      '## Here',
      'See `core/token.ts`, core/ and [the classes](lock-classes.md), or design.md#adr-12.',
      '[a decision](design.md#adr-12), [the overview](design.md#overview-1), [this](#here), [outside](https://example.org/x.md), `examples/classes/*.yaml`.',
      '- `core/token.test.ts` "orders strictly by (epoch", "the holder\'s own"',
    ].join('\n');
    expect(problemsOf('docs/notes.md', doc)).toEqual([]);
  });

  it("judges a link by its target, not by a bare name in its text; the same name outside a link is judged", () => {
    expect(problemsOf('README.md', 'The [design.md](docs/design.md).')).toEqual([]);
    expect(problemsOf('README.md', 'The design.md.')).toEqual(['1: design.md: design.md does not exist']);
  });

  it('reports a path, a link target and a Markdown file name that do not exist', () => {
    expect(problemsOf('README.md', 'The seal: `core/arbiter/seal.ts`.\nSee [it](docs/missing.md).\nAs etcd-behaviour.md says.')).toEqual([
      '1: core/arbiter/seal.ts: core/arbiter/seal.ts does not exist',
      '2: docs/missing.md: docs/missing.md does not exist',
      '3: etcd-behaviour.md: etcd-behaviour.md does not exist',
    ]);
  });

  it('reports an anchor the target does not have, in a link or a cited path', () => {
    expect(problemsOf('README.md', '[x](docs/design.md#adr-13) and docs/design.md#adr-1')).toEqual([
      '1: docs/design.md#adr-13: docs/design.md has no anchor #adr-13',
      '1: docs/design.md: docs/design.md has no anchor #adr-1',
    ]);
  });

  it('reports any mention of ../shared, and links that leave the repository', () => {
    expect(problemsOf('README.md', 'It is [the ADR](../shared/design/adr.md).')).toEqual([
      '1: ../shared: names the steering repository, which a clone does not have; link into docs/ instead',
      '1: ../shared/design/adr.md: points outside the repository, which a clone does not have',
    ]);
  });

  it('reports a cited test name that no title contains, and a test file that does not exist', () => {
    const doc = '- `core/token.test.ts` "orders strictly by (epoch, revision)", "orders loosely"\n- `core/gone.test.ts` "anything"';
    expect(problemsOf('docs/design.md', doc)).toEqual([
      '1: core/token.test.ts "orders loosely": no describe, it or test title in core/token.test.ts contains this text',
      '2: core/gone.test.ts: core/gone.test.ts does not exist',
    ]);
  });

  it('reports a glob whose folder is missing or that matches nothing', () => {
    expect(problemsOf('README.md', '`examples/classes/*.json` and `examples/nope/*.yaml`')).toEqual([
      '1: examples/classes/*.json: nothing in examples/classes matches *.json',
      '1: examples/nope/*.yaml: examples/nope is not a folder of the repository',
    ]);
  });

  it('checks paths inside code fences too, but takes nothing there for a link', () => {
    expect(problemsOf('README.md', '```sh\nlockstep class check examples/missing.yaml # [x](nowhere.txt)\n```')).toEqual([
      '2: examples/missing.yaml: examples/missing.yaml does not exist',
    ]);
  });
});
