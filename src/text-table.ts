// Columns of text for the terminal: each column as wide as its widest cell, cells left-aligned unless the
// column is numeric (right-aligned), trailing spaces trimmed. One table renderer for every command that
// prints one (bench's latency table, quorum --compare, the audit commands' tables).

export interface TableOptions {
  /** Columns whose cells are right-aligned (figures). */
  readonly rightAligned?: (column: number) => boolean;
  /** Between columns; two spaces by default. */
  readonly gap?: string;
  /** A line of dashes under the first row (the header), as wide as each column. */
  readonly underlineHeader?: boolean;
}

/** A table under a header with a line of dashes, as one string: the audit commands' report and holds. */
export function underlinedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return textTable([header, ...rows], { underlineHeader: true }).join('\n');
}

export function textTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const right = options.rightAligned ?? (() => false);
  const [header, ...body] = rows;
  const lines = options.underlineHeader === true && header !== undefined ? [header, widths.map((w) => '-'.repeat(w)), ...body] : rows;
  return lines.map((r) =>
    widths
      .map((width, i) => (right(i) ? (r[i] ?? '').padStart(width) : (r[i] ?? '').padEnd(width)))
      .join(options.gap ?? '  ')
      .trimEnd(),
  );
}
