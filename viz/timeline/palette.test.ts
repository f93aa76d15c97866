import { describe, expect, it } from 'vitest';
import { MARK_KINDS } from './dom-contract.js';
import { INK, KIND_STYLES, OKABE_ITO, PAPER, VIOLATION_COLOUR, contrastRatio } from './palette.js';
import { TIMELINE_CSS } from './styles.js';

describe('timeline palette', () => {
  it('computes WCAG contrast (black on white is 21:1, a colour on itself 1:1)', () => {
    expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 5);
    expect(contrastRatio(OKABE_ITO.blue, OKABE_ITO.blue)).toBe(1);
  });

  it('gives text at least 4.5:1 against what it sits on: the page, and every mark that carries a label', () => {
    expect(contrastRatio(INK, PAPER)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(VIOLATION_COLOUR, PAPER)).toBeGreaterThanOrEqual(4.5);
    for (const kind of MARK_KINDS) {
      const style = KIND_STYLES[kind];
      expect({ kind, ratio: contrastRatio(style.text, style.fill) >= 4.5 }).toEqual({ kind, ratio: true });
    }
  });

  it('does not rest on colour alone: kinds drawn in one band differ in fill, pattern or outline', () => {
    const looks = MARK_KINDS.map((kind) => {
      const s = KIND_STYLES[kind];
      return `${s.band}|${s.fill}|${s.pattern ?? ''}|${s.outline ?? ''}`;
    });
    const clashes = looks.filter((look, i) => looks.indexOf(look) !== i);
    expect(clashes).toEqual([]);
  });

  it('styles a violation with an outline pattern (dashes), not only a colour, and writes outline rules from the palette', () => {
    expect(TIMELINE_CSS).toMatch(/\.lst-mark\[data-violation\][^}]*stroke-dasharray/);
    expect(TIMELINE_CSS).toContain('.lst-mark[data-kind="fence-rejection"]');
  });
});
