// No two modules import each other at run time, directly or around a loop (issue 34: check.ts and
// check-files.ts did): a cycle makes a module's exports undefined while the other half loads. Type-only
// imports are erased by the compiler and do not count. eslint-plugin-import's no-cycle is not installed;
// this reads the value imports of every source file with a regular expression, which is enough for this
// codebase's one-line `import ... from '...'` and `export ... from '...'` statements.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const LAYERS = ['core', 'sim', 'scenarios', 'src', 'bench', 'viz'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'gen' || entry.name === 'node_modules' ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The relative modules `text` imports or re-exports as values. */
export function valueImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'(\.[^']+)'/gms)) {
    const [, , typeOnly, clause, target] = match;
    if (typeOnly !== undefined || target === undefined) continue;
    // `import { type A, type B } from` names types only.
    const names = /^\{([^}]*)\}$/.exec((clause ?? '').trim())?.[1]?.split(',').map((n) => n.trim()).filter((n) => n !== '');
    if (names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type '))) continue;
    found.push(target);
  }
  for (const match of text.matchAll(/^import\s+'(\.[^']+)'/gm)) if (match[1] !== undefined) found.push(match[1]);
  return found;
}

/** Every cycle of the graph, each once, as the list of its files. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

function importGraph(): Map<string, string[]> {
  const files = LAYERS.flatMap((layer) => sources(join(ROOT, layer)));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = valueImports(readFileSync(file, 'utf8')).map((target) => relative(ROOT, resolve(dirname(file), target.replace(/\.js$/, '.ts'))));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

describe('the import graph (issue 34)', () => {
  it('has no run-time cycle', () => {
    expect(cyclesOf(importGraph())).toEqual([]);
  });

  it('finds a cycle where there is one, and not through type-only imports (the negative control)', () => {
    expect(valueImports("import { a } from './a.js';\nimport type { B } from './b.js';\nimport { type C } from './c.js';\nexport { d } from './d.js';")).toEqual(['./a.js', './d.js']);
    expect(cyclesOf(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});
