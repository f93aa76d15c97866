import { describe, expect, it } from 'vitest';
import { textTable, underlinedTable } from './text-table.js';

describe('textTable', () => {
  it('pads each column to its widest cell, right-aligns the figures asked for, trims the ends', () => {
    const rows = [
      ['figure', 'a', 'bb'],
      ['p99 ms', '6.37', '158.2'],
      ['floor', '1.9'],
    ];
    expect(textTable(rows, { rightAligned: (i) => i > 0 })).toEqual(['figure     a     bb', 'p99 ms  6.37  158.2', 'floor    1.9']);
    expect(textTable([])).toEqual([]);
  });

  // Issue 34: the audit commands' own table (src/audit/format.ts) is this one with its header underlined.
  it('underlines the header with dashes as wide as each column, as the audit report prints it', () => {
    expect(underlinedTable(['key', 'held for'], [['payments/a', '5 s'], ['b', '12.5 min']])).toBe(['key         held for', '----------  --------', 'payments/a  5 s', 'b           12.5 min'].join('\n'));
    expect(underlinedTable(['key'], [])).toBe('key\n---');
  });
});
