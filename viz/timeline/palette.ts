// Colours, bands and patterns of the marks. The colours are Okabe and Ito's palette, which stays
// distinguishable under the common colour-vision deficiencies; no meaning rests on colour alone: every
// kind also has its band in the lane (spans on top, beliefs in the middle, instants as ticks at the
// bottom, conditions as hatched backgrounds), and a violation is a dashed outline plus a hatch.
import type { MarkKind } from './dom-contract.js';

export const OKABE_ITO = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const;

/** Text on the page and inside light marks. */
export const INK = '#1A1A1A';
export const PAPER = '#FFFFFF';
/** A violation's outline and hatch. */
export const VIOLATION_COLOUR = '#B3261E';

/** Where in its lane a kind is drawn. */
export type Band = 'background' | 'span' | 'belief' | 'tick';

export interface KindStyle {
  readonly fill: string;
  /** Text drawn on the fill (labels inside marks). */
  readonly text: string;
  readonly band: Band;
  /** An SVG pattern id (see patterns in view-svg.ts) drawn over the fill, or none. */
  readonly pattern?: 'hatch' | 'cross';
  /** A solid outline of its own (a white mark needs one to be seen at all). */
  readonly outline?: string;
  readonly name: string;
  readonly description: string;
}

export const KIND_STYLES: Readonly<Record<MarkKind, KindStyle>> = {
  hold: { fill: OKABE_ITO.blue, text: PAPER, band: 'span', name: 'hold', description: 'a grant, from the log applying it to its end; label: its token' },
  belief: { fill: OKABE_ITO.skyBlue, text: INK, band: 'belief', name: 'belief', description: "the holder's canStart() said yes (ADR-12)" },
  keepalive: { fill: OKABE_ITO.bluishGreen, text: INK, band: 'tick', name: 'keepalive', description: 'a session keepalive sent by the client' },
  leader: { fill: OKABE_ITO.orange, text: INK, band: 'span', name: 'leader', description: "an etcd member's term as leader" },
  election: { fill: OKABE_ITO.yellow, text: INK, band: 'span', name: 'election', description: 'a campaign, until a leader or a step down' },
  partition: { fill: '#8C8C8C', text: INK, band: 'background', pattern: 'hatch', name: 'partition', description: 'cut off from the rest by a network partition' },
  pause: { fill: OKABE_ITO.reddishPurple, text: INK, band: 'background', pattern: 'hatch', name: 'pause', description: 'process paused (GC, SIGSTOP)' },
  crash: { fill: OKABE_ITO.black, text: PAPER, band: 'background', pattern: 'cross', name: 'crash', description: 'process crashed, until its restart' },
  stall: { fill: OKABE_ITO.orange, text: INK, band: 'background', pattern: 'cross', name: 'disk stall', description: "the member's disk stalled (no fsync completes)" },
  expiry: { fill: OKABE_ITO.black, text: PAPER, band: 'tick', name: 'expiry', description: 'a lease expired; the hold it carried ended' },
  write: { fill: OKABE_ITO.bluishGreen, text: INK, band: 'span', name: 'write', description: 'a resource write the fence accepted' },
  'fence-rejection': { fill: PAPER, text: INK, band: 'span', pattern: 'cross', outline: INK, name: 'fence rejection', description: 'a resource write the fence rejected (ADR-16)' },
  clock: { fill: OKABE_ITO.reddishPurple, text: INK, band: 'tick', name: 'clock', description: "the process's clock stepped or drifted" },
  note: { fill: '#595959', text: PAPER, band: 'tick', name: 'note', description: 'a fault or scenario step as scheduled' },
};

/** WCAG 2 relative luminance of a #RRGGBB colour. */
export function luminance(hex: string): number {
  const channel = (at: number): number => {
    const c = parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio between two #RRGGBB colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
