import { describe, expect, it } from 'vitest';
import { textTable } from './text-table.js';

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
});
