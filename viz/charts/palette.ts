// Colours and dash patterns of the planner charts. Okabe and Ito's colour-blind-safe set, darkened where
// needed so every line keeps a 3:1 contrast against the white page (WCAG 1.4.11, non-text contrast); and
// the source of a figure is never told by colour alone: analytic lines are dashed, simulated ones solid.

export const SERIES_COLOURS = ['#0072B2', '#C54E00', '#00795A', '#A2457E', '#5B5B5B'] as const;

export type FigureSource = 'simulated' | 'analytic';

export function seriesColour(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length]!;
}

/** SVG stroke-dasharray for a figure's source: analytic dashed, simulated solid. */
export function dashFor(source: FigureSource): string | null {
  return source === 'analytic' ? '6 4' : null;
}
