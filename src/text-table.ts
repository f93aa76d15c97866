// Columns of text for the terminal: each column as wide as its widest cell, cells left-aligned unless the
// column is numeric (right-aligned), trailing spaces trimmed. One table renderer for every command that
// prints one (bench's latency table, quorum --compare).

export interface TableOptions {
  /** Columns whose cells are right-aligned (figures). */
  readonly rightAligned?: (column: number) => boolean;
  /** Between columns; two spaces by default. */
  readonly gap?: string;
}

export function textTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const right = options.rightAligned ?? (() => false);
  return rows.map((r) =>
    widths
      .map((width, i) => (right(i) ? (r[i] ?? '').padStart(width) : (r[i] ?? '').padEnd(width)))
      .join(options.gap ?? '  ')
      .trimEnd(),
  );
}
