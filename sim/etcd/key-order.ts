// etcd orders keys (and compares values) as raw bytes: bytes.Compare on UTF-8 (mvcc/index.go btree,
// etcdserver/apply.go compareKV). JavaScript's `<` compares UTF-16 code units, which disagrees with UTF-8
// byte order for characters above U+FFFF against U+E000..U+FFFF. UTF-8 byte order equals code point
// order, so this compares code points with ICU's surrogate fix-up instead of decoding every string.

/** -1, 0 or 1 as `bytes.Compare(utf8(a), utf8(b))` would answer. */
export function compareKeys(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (U+D800..U+DFFF) encode code points above U+FFFF: move them above U+E000..U+FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** Whether `key` falls in the range `clientv3.WithPrefix(prefix)` asks for; "" with prefix means every key. */
export const matchesPrefix = (key: string, prefix: string): boolean => key.startsWith(prefix);

/** Sorts keys in etcd's byte order, as `sort.StringSlice` does (lease/lessor.go Revoke l.343). */
export const sortKeys = (keys: Iterable<string>): string[] => [...keys].sort(compareKeys);
