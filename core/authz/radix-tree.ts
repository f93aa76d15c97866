// A radix (compressed prefix) tree over strings, for longest-prefix match (ADR-19: "prefix grants are
// compiled into a radix tree"). Edges carry whole substrings, so a lookup costs one comparison per
// edge on the key's path, independent of how many prefixes are stored. Matching is on plain string
// prefixes, code unit by code unit: "ns/a" is a prefix of "ns/a/b" and of "ns/ab".

type Edge<V> = { label: string; node: RadixNode<V> };
type RadixNode<V> = {
  /** Present when a stored prefix ends exactly here. */
  entry?: { prefix: string; value: V };
  /** Keyed by the first code unit of the edge's label; labels of siblings never share it. */
  edges: Map<string, Edge<V>>;
};

export type PrefixMatch<V> = { prefix: string; value: V };

export class RadixTree<V> {
  readonly #root: RadixNode<V> = { edges: new Map() };
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Stores `value` under `prefix`. Returns false, keeping the first value, when the prefix is already stored. */
  insert(prefix: string, value: V): boolean {
    let node = this.#root;
    let rest = prefix;
    while (rest.length > 0) {
      const edge = node.edges.get(rest[0]!);
      if (edge === undefined) {
        const leaf: RadixNode<V> = { edges: new Map() };
        node.edges.set(rest[0]!, { label: rest, node: leaf });
        node = leaf;
        rest = '';
        break;
      }
      const common = commonPrefixLength(edge.label, rest);
      if (common < edge.label.length) splitEdge(edge, common);
      node = edge.node;
      rest = rest.slice(common);
    }
    if (node.entry !== undefined) return false;
    node.entry = { prefix, value };
    this.#size += 1;
    return true;
  }

  /** The longest stored prefix of `key`, with its value; undefined when no stored prefix matches. */
  longestPrefixOf(key: string): PrefixMatch<V> | undefined {
    let node = this.#root;
    let offset = 0;
    let best = node.entry;
    while (offset < key.length) {
      const edge = node.edges.get(key[offset]!);
      if (edge === undefined || !key.startsWith(edge.label, offset)) break;
      offset += edge.label.length;
      node = edge.node;
      if (node.entry !== undefined) best = node.entry;
    }
    return best === undefined ? undefined : { prefix: best.prefix, value: best.value };
  }

  /** Every stored prefix with its value, in lexicographic (code unit) order. */
  entries(): PrefixMatch<V>[] {
    const out: PrefixMatch<V>[] = [];
    const visit = (node: RadixNode<V>): void => {
      if (node.entry !== undefined) out.push({ prefix: node.entry.prefix, value: node.entry.value });
      const ordered = [...node.edges.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [, edge] of ordered) visit(edge.node);
    };
    visit(this.#root);
    return out;
  }
}

// Turns edge "abcd" into "ab" -> (new node) -> "cd", so a prefix can end, or branch, after "ab".
function splitEdge<V>(edge: Edge<V>, at: number): void {
  const tail: Edge<V> = { label: edge.label.slice(at), node: edge.node };
  const middle: RadixNode<V> = { edges: new Map([[tail.label[0]!, tail]]) };
  edge.label = edge.label.slice(0, at);
  edge.node = middle;
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}
